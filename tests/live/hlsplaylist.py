"""HLS media playlists (RFC 8216bis) as players read them, for the LL-HLS client and tests.

`parse_playlist(text)` gives a `MediaPlaylist`: segments with their parts, the parts of the segment
in progress (`pending_parts`), `EXT-X-PRELOAD-HINT`, `SERVER-CONTROL`, `PART-INF`, `EXT-X-SKIP`,
`EXT-X-MAP`, PDT, `EXT-X-ENDLIST`; each part knows its media sequence number and index. Stdlib only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


# --------------------------------------------------------------------------------------------- #
# playlists
# --------------------------------------------------------------------------------------------- #
@dataclass
class Part:
    uri: str
    duration: float
    independent: bool
    msn: int = 0
    index: int = 0          # part number within its segment
    start: float = 0.0      # seconds from the start of the playlist's first listed segment


@dataclass
class Segment:
    uri: str
    duration: float
    msn: int
    parts: list[Part] = field(default_factory=list)
    pdt: str | None = None
    discontinuity: bool = False


@dataclass
class MediaPlaylist:
    text: str
    version: int | None = None
    target_duration: float | None = None
    media_sequence: int = 0
    part_target: float | None = None
    server_control: dict = field(default_factory=dict)
    skipped: int = 0                      # EXT-X-SKIP:SKIPPED-SEGMENTS
    segments: list[Segment] = field(default_factory=list)
    pending_parts: list[Part] = field(default_factory=list)   # of segment `next_msn`, not yet complete
    hint: dict | None = None              # EXT-X-PRELOAD-HINT attributes (TYPE, URI, BYTERANGE-START)
    endlist: bool = False
    map_uri: str | None = None
    playlist_type: str | None = None

    @property
    def next_msn(self) -> int:
        """The media sequence number of the segment after the last complete one."""
        return self.media_sequence + self.skipped + len(self.segments)

    def all_parts(self) -> list[Part]:
        return [p for s in self.segments for p in s.parts] + self.pending_parts

    def next_part(self) -> tuple[int, int]:
        """(msn, part) of the first part not listed: what a blocking reload asks for next."""
        return self.next_msn, len(self.pending_parts)

    def end_time(self) -> float:
        return sum(s.duration for s in self.segments) + sum(p.duration for p in self.pending_parts)


ATTR = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')


def attributes(text: str) -> dict:
    return {k: v[1:-1] if v.startswith('"') else v for k, v in ATTR.findall(text)}


def parse_playlist(text: str) -> MediaPlaylist:
    pl = MediaPlaylist(text=text)
    parts: list[Part] = []
    duration: float | None = None
    pdt, disc = None, False
    t = 0.0
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        tag, _, value = line.partition(":")
        if tag == "#EXT-X-VERSION":
            pl.version = int(value)
        elif tag == "#EXT-X-TARGETDURATION":
            pl.target_duration = float(value)
        elif tag == "#EXT-X-MEDIA-SEQUENCE":
            pl.media_sequence = int(value)
        elif tag == "#EXT-X-PART-INF":
            pl.part_target = float(attributes(value)["PART-TARGET"])
        elif tag == "#EXT-X-SERVER-CONTROL":
            pl.server_control = attributes(value)
        elif tag == "#EXT-X-SKIP":
            pl.skipped = int(attributes(value)["SKIPPED-SEGMENTS"])
        elif tag == "#EXT-X-MAP":
            pl.map_uri = attributes(value)["URI"]
        elif tag == "#EXT-X-PLAYLIST-TYPE":
            pl.playlist_type = value
        elif tag == "#EXT-X-PROGRAM-DATE-TIME":
            pdt = value
        elif tag == "#EXT-X-DISCONTINUITY":
            disc = True
        elif tag == "#EXT-X-PART":
            a = attributes(value)
            parts.append(Part(a["URI"], float(a["DURATION"]), a.get("INDEPENDENT") == "YES"))
        elif tag == "#EXT-X-PRELOAD-HINT":
            pl.hint = attributes(value)
        elif tag == "#EXTINF":
            duration = float(value.split(",")[0])
        elif tag == "#EXT-X-ENDLIST":
            pl.endlist = True
        elif not line.startswith("#") and duration is not None:
            msn = pl.next_msn
            for i, p in enumerate(parts):
                p.msn, p.index = msn, i
            seg = Segment(line, duration, msn, parts, pdt, disc)
            for p in parts:
                p.start = t
                t += p.duration
            t = sum(s.duration for s in pl.segments) + duration
            pl.segments.append(seg)
            parts, duration, pdt, disc = [], None, None, False
    for i, p in enumerate(parts):
        p.msn, p.index, p.start = pl.next_msn, i, t
        t += p.duration
    pl.pending_parts = parts
    return pl
