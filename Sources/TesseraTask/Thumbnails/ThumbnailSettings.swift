/// `outputs[].thumbnails` as written: a JPEG of the composite every `intervalSeconds`, `width`
/// pixels wide (HLS and file outputs).
public struct ThumbnailSpec: Codable, Sendable, Equatable {
    public var intervalSeconds: Double?
    public var width: Int?
    public init(intervalSeconds: Double? = nil, width: Int? = nil) {
        self.intervalSeconds = intervalSeconds; self.width = width
    }
}

/// An output's thumbnails, resolved: how often, how large, and the sprite sheets' grid.
public struct ThumbnailSettings: Codable, Sendable, Equatable {
    /// Seconds of the output's timeline between two thumbnails.
    public var intervalSeconds: Double
    /// Even pixel sizes; the height keeps the canvas's aspect.
    public var width: Int
    public var height: Int
    /// Tiles per sprite sheet across and down.
    public var columns: Int
    public var rows: Int

    public static let defaultIntervalSeconds: Double = 2
    public static let defaultWidth = 320
    public static let intervalRange: ClosedRange<Double> = 1...600
    public static let widthRange: ClosedRange<Int> = 32...1920

    public init(intervalSeconds: Double, width: Int, height: Int, columns: Int, rows: Int) {
        self.intervalSeconds = intervalSeconds; self.width = width; self.height = height
        self.columns = columns; self.rows = rows
    }

    /// `width` on a canvas of `canvasWidth`×`canvasHeight`: the height from the canvas's aspect,
    /// rounded to even; sheets of up to 5×5 tiles, fewer for wide tiles so a sheet stays within
    /// about 2048 pixels across (a 1920-wide thumbnail gets a sheet of its own).
    public init(intervalSeconds: Double, width: Int, canvasWidth: Int, canvasHeight: Int) {
        let height = max(2, Int((Double(width) * Double(canvasHeight) / Double(canvasWidth) / 2).rounded()) * 2)
        let grid = max(1, min(5, 2048 / max(width, 1)))
        self.init(intervalSeconds: intervalSeconds, width: width, height: height, columns: grid, rows: grid)
    }

    public var tilesPerSheet: Int { columns * rows }
}
