import Foundation

/// Volume conversions.
public enum AudioGain {
    /// A task document's `volume` percent (0–200, 100 = unchanged) as a linear gain: `percent / 100`,
    /// so 50 halves the amplitude (−6 dB) and 200 doubles it (+6 dB). Negative values count as 0.
    public static func linear(volumePercent: Double) -> Float { Float(max(0, volumePercent) / 100) }

    /// A linear gain in decibels, `20·log10(gain)` (−∞ for 0); for logs and status.
    public static func decibels(linear gain: Float) -> Double { 20 * log10(Double(gain)) }
}
