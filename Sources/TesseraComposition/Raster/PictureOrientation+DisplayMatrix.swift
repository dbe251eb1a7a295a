extension PictureOrientation {
    /// The orientation a container's display matrix asks for (MP4 `tkhd`, FFmpeg's
    /// `AV_PKT_DATA_DISPLAYMATRIX`: nine fixed-point values, row-major), nearest quarter turn —
    /// what ffmpeg's own autorotation shows.
    ///
    /// The matrix maps a coded point to display as `x' = a·x + c·y`, `y' = b·x + d·y`
    /// (`a b c d` = elements 0 1 3 4; y points down). FFmpeg's `av_display_rotation_get` reads its
    /// angle as `−atan2(b/|col₁|, a/|col₀|)` counter-clockwise, and a negative determinant
    /// `a·d − b·c` is a mirror. In this type's terms (mirror first, then a clockwise turn φ):
    /// - no mirror: `a = cos φ, b = sin φ` — so `rotate=90` (stored as −90) turns clockwise;
    /// - mirror: `a = −cos φ, b = −sin φ` — a plain left-right flip is φ = 0, a transpose φ = 270.
    ///
    /// Rounding to a quarter turn needs no trigonometry: the larger of |cos φ| and |sin φ| picks
    /// the axis, its sign the direction. A matrix with no usable scale reads as upright.
    public init(displayMatrix matrix: [Int32]) {
        guard matrix.count >= 5 else { self = .upright; return }
        let a = Double(matrix[0]), b = Double(matrix[1]), c = Double(matrix[3]), d = Double(matrix[4])
        let mirrored = a * d - b * c < 0
        // Squared column lengths: av_display_rotation_get's normalisation, compared squared.
        let column0 = a * a + c * c, column1 = b * b + d * d
        guard column0 > 0, column1 > 0 else { self = .upright; return }
        let cosine = mirrored ? -a : a, sine = mirrored ? -b : b
        let turns: Int
        if cosine * cosine / column0 >= sine * sine / column1 {
            turns = cosine >= 0 ? 0 : 2
        } else {
            turns = sine > 0 ? 1 : 3
        }
        self.init(quarterTurns: turns, mirrored: mirrored)
    }
}
