/// How many threads x264 encodes a live task's video with when `encoder.video.threads` does not
/// say. (Offline, x264 picks: a `tessera mix` should finish as soon as the machine allows.)
///
/// x264's own choice is 1.5 threads per core, made for one encoder alone on a machine. A mixing
/// node runs many tasks, each with its own decoders, so the cores are shared already; every extra
/// frame thread then costs CPU in hand-offs, a frame of delay, and about 7 MB of frames at 720p
/// (`bench/live-floor.py`). So a task gets the threads its work needs: one per "720p30 at
/// veryfast" of work (about a third of a core on the machines measured), which keeps each thread
/// well inside real time, and never more than x264 would pick.
public enum EncoderThreads {
    /// What each x264 preset costs per pixel, relative to veryfast (x264's speed ladder, rounded).
    static let presetCost: [String: Double] = [
        "ultrafast": 0.3, "superfast": 0.5, "veryfast": 1, "faster": 1.5, "fast": 2, "medium": 2.5,
        "slow": 4, "slower": 8, "veryslow": 16, "placebo": 40,
    ]

    /// The work of 1280x720 at 30 fps, the unit one thread is given.
    static let pixelsPerSecondPerThread = 1280.0 * 720.0 * 30.0

    public static func automatic(width: Int, height: Int, fps: Int, preset: String, cores: Int) -> Int {
        let work = Double(width * height * fps) / pixelsPerSecondPerThread * (presetCost[preset] ?? 1)
        let ceiling = max(1, cores * 3 / 2)
        return min(ceiling, max(1, Int(work.rounded(.up))))
    }
}
