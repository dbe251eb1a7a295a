/// H.264 levels (ITU-T H.264 Table A-1) by the largest frame (macroblocks) and macroblock rate
/// they allow; `profile-level-id` names one, and x264 is told the same level.
public enum H264Level {
    private static let table: [(idc: Int, frameMacroblocks: Int, macroblocksPerSecond: Int)] = [
        (30, 1_620, 40_500), (31, 3_600, 108_000), (32, 5_120, 216_000), (40, 8_192, 245_760),
        (42, 8_704, 522_240), (50, 22_080, 589_824), (51, 36_864, 983_040), (52, 36_864, 2_073_600),
    ]

    /// The lowest level, at least 3.1 (what browsers offer: `42e01f`), that allows this size and
    /// rate; 5.2 beyond.
    public static func idc(width: Int, height: Int, fps: Int) -> Int {
        let frame = ((width + 15) / 16) * ((height + 15) / 16)
        let rate = frame * fps
        return table.first { $0.idc >= 31 && frame <= $0.frameMacroblocks && rate <= $0.macroblocksPerSecond }?.idc ?? 52
    }
}
