import Foundation
import TesseraComposition

/// Text regions: `"text"` with `fontSize`, `color`, `font` and `align`, resolved into the
/// `ResolvedText` the renderer draws.
extension ValidationContext {
    /// A text region's text and style, or nil with its issues noted.
    mutating func resolveText(_ text: String, spec: RegionSpec, at path: String) -> ResolvedText? {
        let before = issues.count
        if text.unicodeScalars.count > ResolvedText.maxLength {
            issues.add(path + ".text", "must be at most \(ResolvedText.maxLength) characters (got \(text.unicodeScalars.count))")
        }
        let fontSize = spec.fontSize ?? ResolvedText.defaultFontSize
        if !ResolvedText.fontSizeRange.contains(fontSize) {
            issues.add(path + ".fontSize", "must be from \(Int(ResolvedText.fontSizeRange.lowerBound)) "
                + "to \(Int(ResolvedText.fontSizeRange.upperBound)) pixels")
        }
        var color = YUVColor(red: 255, green: 255, blue: 255)
        if let hex = spec.color {
            if let parsed = YUVColor(hex: hex) { color = parsed } else {
                issues.add(path + ".color", "expected #RRGGBB or #RRGGBBAA, got \"\(hex)\"")
            }
        }
        let font = resolveFont(spec.font, at: path + ".font")
        let align = resolveEnum(spec.align, at: path + ".align", default: TextAlign.left)
        guard issues.count == before, let font, let align else { return nil }
        return ResolvedText(text: text, fontPath: font, fontSize: fontSize, color: color, align: align)
    }

    /// `font`: a TrueType / OpenType file under the media root, or the default font when absent.
    mutating func resolveFont(_ given: String?, at path: String) -> String? {
        guard let given else {
            // The default is the service's own file, outside the media root by design.
            guard options.fileExists(ResolvedText.defaultFontPath) else {
                issues.add(path, "no font given and the default font (\(ResolvedText.defaultFontPath), Debian's "
                    + "fonts-dejavu-core) is not installed; name a TTF or OTF file")
                return nil
            }
            return ResolvedText.defaultFontPath
        }
        guard !given.isEmpty else {
            issues.add(path, "must not be empty")
            return nil
        }
        let file: String
        switch TaskPathResolver.classify(given) {
        case .success(.file(let local)): file = local
        case .success: issues.add(path, "must be a file path (or file: URL) of a TTF or OTF font"); return nil
        case .failure(let error): issues.add(path, error.message); return nil
        }
        let ext = URL(fileURLWithPath: file).pathExtension.lowercased()
        guard ["ttf", "otf", "ttc"].contains(ext) else {
            issues.add(path, "must be a TrueType or OpenType font file (.ttf, .otf, .ttc): \(given)")
            return nil
        }
        return resolveExistingFile(file, asWritten: given, at: path)
    }

    /// The text style fields belong to text regions only: on another region they would be
    /// silently meaningless, so each is an issue.
    mutating func checkTextFieldsAbsent(_ spec: RegionSpec, at path: String) {
        let present: [(String, Bool)] = [("fontSize", spec.fontSize != nil), ("color", spec.color != nil),
                                         ("font", spec.font != nil), ("align", spec.align != nil)]
        for (key, isSet) in present where isSet {
            issues.add("\(path).\(key)", "only a text region (with text) has \(key)")
        }
    }
}
