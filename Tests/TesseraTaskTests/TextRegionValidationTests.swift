import Foundation
import Testing
import TesseraComposition
import TesseraTask

/// Text regions, `sourceCrop`, `cornerRadius` and `maskImage`: what they resolve to, and every
/// fault named by its field path.
@Suite struct TextRegionValidationTests {
    static let files: Set<String> = TaskFixtures.files.union(["/media/circle.png", "/media/NotoSansCJK.otf",
                                                             ResolvedText.defaultFontPath])

    /// The base document with `regions` (JSON array text) as its layout.
    static func document(regions: String) -> String {
        """
        {"inputs": [{"id": "anchor", "url": "anchor.mp4"}],
         "encoder": {"video": {"width": 1280, "height": 720}},
         "layout": {"regions": \(regions)},
         "outputs": [{"url": "out.mp4"}]}
        """
    }

    static func validate(regions: String, files: Set<String> = files) -> Result<ResolvedTask, ValidationFailure> {
        TaskFixtures.validate(document(regions: regions), options: TaskFixtures.options(files: files))
    }

    static func issues(_ regions: String, files: Set<String> = files) -> [String] {
        guard case .failure(let failure) = validate(regions: regions, files: files) else { return [] }
        return failure.issues.map(\.description)
    }

    static func region(_ regions: String) throws -> ResolvedRegion {
        guard case .success(let task) = validate(regions: regions) else {
            Issue.record("expected a valid document: \(issues(regions))")
            throw CancellationError()
        }
        return try #require(task.layout?.regions.first)
    }

    @Test func textRegionFillsDefaults() throws {
        let region = try Self.region(#"[{"text": "PK 3:1", "x": 0, "y": 0, "width": 320, "height": 64}]"#)
        #expect(region.content == .text(ResolvedText(text: "PK 3:1", fontPath: ResolvedText.defaultFontPath, fontSize: 24,
                                                     color: YUVColor(red: 255, green: 255, blue: 255), align: .left)))
        #expect(region.backgroundColor == nil)
        #expect(region.sourceCrop == nil && region.cornerRadius == nil && region.maskImage == nil)
    }

    @Test func textRegionTakesItsStyle() throws {
        let region = try Self.region("""
            [{"text": "你好", "font": "NotoSansCJK.otf", "fontSize": 40, "color": "#FF000080", "align": "right",
              "backgroundColor": "#000000", "x": 0, "y": 0, "width": 320, "height": 64}]
            """)
        #expect(region.content == .text(ResolvedText(text: "你好", fontPath: "/media/NotoSansCJK.otf", fontSize: 40,
                                                     color: YUVColor(red: 255, green: 0, blue: 0, alpha: 0x80),
                                                     align: .right)))
        #expect(region.backgroundColor == YUVColor(red: 0, green: 0, blue: 0))
    }

    @Test func textFaultsAreNamedByPath() {
        let issues = Self.issues("""
            [{"text": "x", "fontSize": 2, "color": "white", "align": "justify", "font": "a.woff",
              "x": 0, "y": 0, "width": 320, "height": 64},
             {"text": "y", "font": "missing.ttf", "x": 0, "y": 0, "width": 320, "height": 64}]
            """)
        #expect(issues.contains("layout.regions[0].fontSize: must be from 4 to 512 pixels"))
        #expect(issues.contains(#"layout.regions[0].color: expected #RRGGBB or #RRGGBBAA, got "white""#))
        #expect(issues.contains(#"layout.regions[0].align: expected left, center or right, got "justify""#))
        #expect(issues.contains { $0.hasPrefix("layout.regions[0].font: must be a TrueType or OpenType font file") })
        #expect(issues.contains("layout.regions[1].font: file not found: missing.ttf (looked in the server's media root, --media-root)"))
    }

    @Test func textStyleOnAnotherRegionIsAnIssue() {
        let issues = Self.issues(#"[{"input": "anchor", "fontSize": 20, "align": "left", "x": 0, "y": 0, "width": 320, "height": 64}]"#)
        #expect(issues == ["layout.regions[0].fontSize: only a text region (with text) has fontSize",
                           "layout.regions[0].align: only a text region (with text) has align"])
    }

    @Test func exactlyOneKind() {
        #expect(Self.issues(#"[{"input": "anchor", "text": "x", "x": 0, "y": 0, "width": 320, "height": 64}]"#)
            == ["layout.regions[0]: needs exactly one of input, image or text"])
        #expect(Self.issues(#"[{"x": 0, "y": 0, "width": 320, "height": 64}]"#)
            == ["layout.regions[0]: needs exactly one of input, image or text"])
    }

    @Test func missingDefaultFontIsNamed() {
        let issues = Self.issues(#"[{"text": "x", "x": 0, "y": 0, "width": 320, "height": 64}]"#, files: TaskFixtures.files)
        #expect(issues.count == 1)
        #expect(issues.first?.hasPrefix("layout.regions[0].font: no font given and the default font") == true)
    }

    @Test func textRegionHasNoPlaceholderOrCrop() {
        let issues = Self.issues("""
            [{"text": "x", "placeholderImage": "bg.png", "sourceCrop": {"x": 0, "y": 0, "width": 1, "height": 1},
              "x": 0, "y": 0, "width": 320, "height": 64}]
            """)
        #expect(issues == ["layout.regions[0].placeholderImage: only an input region shows a placeholder",
                           "layout.regions[0].sourceCrop: a text region has no source picture to crop"])
    }

    @Test func tooLongTextIsAnIssue() {
        let text = String(repeating: "a", count: 1001)
        #expect(Self.issues(#"[{"text": "\#(text)", "x": 0, "y": 0, "width": 320, "height": 64}]"#)
            == ["layout.regions[0].text: must be at most 1000 characters (got 1001)"])
    }

    @Test func sourceCropResolves() throws {
        let region = try Self.region("""
            [{"input": "anchor", "sourceCrop": {"x": 0.5, "y": 0.25, "width": 0.5, "height": 0.5},
              "cornerRadius": 12.4, "maskImage": "circle.png", "x": 0, "y": 0, "width": 320, "height": 180}]
            """)
        #expect(region.sourceCrop == SourceCrop(x: 0.5, y: 0.25, width: 0.5, height: 0.5))
        #expect(region.cornerRadius == 12)
        #expect(region.maskImage == "/media/circle.png")
        #expect(region.isMasked)
    }

    @Test func sourceCropFaultsAreNamedByPath() {
        #expect(Self.issues(#"[{"input": "anchor", "sourceCrop": {"x": -0.1, "y": 1, "width": 0, "height": 1.5}, "x": 0, "y": 0, "width": 320, "height": 180}]"#)
            == ["layout.regions[0].sourceCrop.x: must be from 0 to less than 1 (a fraction of the source)",
                "layout.regions[0].sourceCrop.y: must be from 0 to less than 1 (a fraction of the source)",
                "layout.regions[0].sourceCrop.width: must be from 0.05 to 1 (a fraction of the source)",
                "layout.regions[0].sourceCrop.height: must be from 0.05 to 1 (a fraction of the source)"])
        #expect(Self.issues(#"[{"input": "anchor", "sourceCrop": {"x": 0.6, "y": 0.5, "width": 0.5, "height": 0.5}, "x": 0, "y": 0, "width": 320, "height": 180}]"#)
            == ["layout.regions[0].sourceCrop.width: x + width must not pass 1 (the source's right edge)"])
        #expect(Self.issues(#"[{"input": "anchor", "sourceCrop": {"x": 0, "y": 0, "width": 1}, "x": 0, "y": 0, "width": 320, "height": 180}]"#)
            == ["layout.regions[0].sourceCrop.height: required"])
        #expect(Self.issues(#"[{"input": "anchor", "sourceCrop": {"x": 0, "y": 0, "width": 1, "height": 1, "w": 1}, "x": 0, "y": 0, "width": 320, "height": 180}]"#)
            == [#"layout.regions[0].sourceCrop.w: unknown field; did you mean "x"?"#])
    }

    @Test func shapeFaultsAreNamedByPath() {
        #expect(Self.issues(#"[{"input": "anchor", "cornerRadius": -1, "maskImage": "circle.jpg", "x": 0, "y": 0, "width": 320, "height": 180}]"#)
            == ["layout.regions[0].cornerRadius: must be from 0 to 100000 pixels",
                "layout.regions[0].maskImage: must be a PNG file (its alpha channel is the mask): circle.jpg"])
        #expect(Self.issues(#"[{"image": "logo.png", "maskImage": "heart.png", "x": 0, "y": 0, "width": 320, "height": 180}]"#)
            == ["layout.regions[0].maskImage: file not found: heart.png (looked in the server's media root, --media-root)"])
        #expect(Self.issues(#"[{"text": "x", "x": 0, "y": 0, "width": 8000, "height": 180}]"#)
            == ["layout.regions[0].width: a text region is at most 7680 pixels wide"])
    }

    @Test func oldDocumentsMeanWhatTheyMeant() throws {
        let region = try Self.region(#"[{"input": "anchor", "x": 0, "y": 0, "width": 320, "height": 180}]"#)
        #expect(region == ResolvedRegion(documentIndex: 0, content: .input(0), rect: PixelRect(x: 0, y: 0, width: 320, height: 180),
                                         alpha: 255, renderMode: .crop, backgroundColor: nil, placeholderImage: nil))
        #expect(!region.isMasked)
    }

    @Test func previewLabelsNameTheNewKinds() throws {
        guard case .success(let task) = Self.validate(regions: """
            [{"text": "Score 3:1 and a very long caption", "x": 0, "y": 0, "width": 320, "height": 64},
             {"input": "anchor", "sourceCrop": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}, "cornerRadius": 16,
              "maskImage": "circle.png", "x": 0, "y": 100, "width": 320, "height": 180}]
            """), let layout = task.layout else { Issue.record("invalid"); return }
        #expect(LayoutPreview.labels(for: layout, inputIDs: ["anchor"])
            == ["text: Score 3:1 and a very ...", "anchor crop r16 mask circle.png"])
    }
}
