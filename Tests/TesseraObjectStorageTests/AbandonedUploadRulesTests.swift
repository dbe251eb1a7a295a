import Testing
import TesseraObjectStorage

/// Which keys a restarted worker recovers for a per-participant output, and what it sends first.
@Suite struct AbandonedUploadRulesTests {
    let pattern = PerInputKeyPattern(template: "room42/{input}.webm")
    static func text(_ match: (input: String, index: Int)) -> String { "\(match.input)#\(match.index)" }

    @Test func anInputsFilesAndTheirLaterNamesMatch() {
        #expect(pattern.prefix == "room42/")
        #expect(pattern.match("room42/host.webm").map(Self.text) == "host#0")
        #expect(pattern.match("room42/host.1.webm").map(Self.text) == "host#1")
        #expect(pattern.match("room42/guest-2.12.webm").map(Self.text) == "guest-2#12")
        // A dotted id reads as the shortest id's later file; either way the key is the output's.
        #expect(pattern.match("room42/cam.a.webm").map(Self.text) == "cam.a#0")
    }

    @Test func otherKeysDoNot() {
        for key in ["room42/other/x.webm", "room42/host.webm.tmp", "room42/host.mkv", "room43/host.webm", "room42/.webm",
                    "room42/tl.timeline.json", "room42/host.1.webm/x", "room42"] {
            #expect(pattern.match(key).map(Self.text) == nil, "\(key)")
        }
    }

    @Test func aPlaceholderInTheFolderOrWithoutExtension() {
        let folder = PerInputKeyPattern(template: "shows/{input}/cam.mkv")
        #expect(folder.prefix == "shows/")
        #expect(folder.match("shows/host/cam.1.mkv").map(Self.text) == "host#1")
        #expect(folder.match("shows/host/other/cam.mkv").map(Self.text) == nil)
        let bare = PerInputKeyPattern(template: "raw/{input}")
        #expect(bare.match("raw/host").map(Self.text) == "host#0")
        #expect(bare.match("raw/host.2").map(Self.text) == "host#2")
        #expect(PerInputKeyPattern(template: "room42/host.webm").match("room42/host.webm").map(Self.text) == nil)
    }

    @Test func anEarlierRunsListedFilesGoToTheirOutputs() {
        let listed = ["/rec/room42-host.mkv", "s3://b/room42/guest.webm", "/rec/room42-host.1.mkv", "/rec/show.mp4",
                      "s3://b/room42/guest.webm", "/rec/other/room42-x.mkv"]
        let byOutput = PerInputKeyPattern.byOutput(listed, templates: [("rec/room42-{input}.mkv", "/rec/room42-{input}.mkv"),
                                                                       ("s3://b/room42/{input}.webm", "s3://b/room42/{input}.webm")])
        #expect(byOutput == ["rec/room42-{input}.mkv": ["/rec/room42-host.mkv", "/rec/room42-host.1.mkv"],
                             "s3://b/room42/{input}.webm": ["s3://b/room42/guest.webm"]])
    }

    @Test func theSpoolsTailGoesUpAfterThePartsThenTheUploadCompletes() {
        let mib: Int64 = 1024 * 1024
        // Nothing in the store and no spool: aborted. Spool bytes only: they are the one part.
        #expect(AbandonedUploadPlan.plan(parts: [], boundary: nil) == .abort)
        #expect(AbandonedUploadPlan.plan(parts: [], boundary: 0) == .abort)
        #expect(AbandonedUploadPlan.plan(parts: [], boundary: 70_000) == .complete(tail: 0..<70_000))
        // Parts in the store, the spool beyond them: the rest follows as the last part.
        let parts = [(number: 1, size: 5 * mib), (number: 2, size: 6 * mib)]
        #expect(AbandonedUploadPlan.plan(parts: parts, boundary: 11 * mib + 10) == .complete(tail: 11 * mib..<(11 * mib + 10)))
        // Spool not on this node, or nothing after the parts: the parts alone.
        #expect(AbandonedUploadPlan.plan(parts: parts, boundary: nil) == .complete(tail: nil))
        #expect(AbandonedUploadPlan.plan(parts: parts, boundary: 11 * mib) == .complete(tail: nil))
        // A short last part was the final one (the upload was being completed), and parts out of
        // order cannot be the spool's first bytes: the spool is not trusted.
        #expect(AbandonedUploadPlan.plan(parts: [(1, 5 * mib), (2, 1000)], boundary: 6 * mib) == .complete(tail: nil))
        #expect(AbandonedUploadPlan.plan(parts: [(1, 5 * mib), (3, 5 * mib)], boundary: 20 * mib) == .complete(tail: nil))
    }
}
