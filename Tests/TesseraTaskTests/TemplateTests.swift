import Foundation
import Testing
import TesseraComposition
import TesseraTask

@Suite struct TemplateTests {
    /// A task with `count` file inputs (`i0`, `i1`, …) on a 1280×720 canvas.
    private func document(inputs count: Int, template: String?, regions: String? = nil) -> JSONValue {
        let inputs = (0..<count).map { #"{"id": "i\#($0)", "url": "anchor.mp4"}"# }.joined(separator: ", ")
        var layout: [String: JSONValue] = [:]
        if let template { layout["template"] = .string(template) }
        if let regions { layout["regions"] = TaskFixtures.value(regions) }
        return TaskFixtures.value("""
            {"inputs": [\(inputs)], "encoder": {"video": {"width": 1280, "height": 720}}, "outputs": [{"url": "o.mp4"}]}
            """).setting("layout", to: .object(layout))
    }

    private func regions(inputs count: Int, template: String, regions: String? = nil) throws -> [ResolvedRegion] {
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document(inputs: count, template: template, regions: regions))))
        return try #require(task.layout).regions
    }

    private func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> PixelRect {
        PixelRect(x: x, y: y, width: width, height: height)
    }

    @Test func theBundledLibraryHasTheFiveTemplates() {
        let library = TemplateLibrary.bundled
        #expect(library.loadErrors.isEmpty, "\(library.loadErrors)")
        #expect(library.names == ["float", "grid", "pk", "screen-share", "speaker"])
        #expect(library.template(named: "speaker")?.maxInputs == 6)
        #expect(library.template(named: "grid")?.maxInputs == 16)
        #expect(library.template(named: "float")?.maxInputs == 5)
        #expect(library.template(named: "screen-share")?.maxInputs == 5)
        #expect(library.template(named: "pk")?.maxInputs == 5)
        #expect(library.template(named: "mosaic") == nil)
    }

    @Test func theLayoutsDirectoryHoldsTheSameTemplates() {
        // Layouts/templates links to the bundled resources, so users read what Tessera uses.
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let fromLayouts = TemplateLibrary(directory: repository.appendingPathComponent("Layouts/templates"))
        #expect(fromLayouts.loadErrors.isEmpty)
        #expect(fromLayouts.names == TemplateLibrary.bundled.names)
        for name in fromLayouts.names {
            #expect(fromLayouts.template(named: name) == TemplateLibrary.bundled.template(named: name))
        }
    }

    @Test(arguments: 1...16)
    func gridTilesTheCanvasWithoutGapsOrOverlaps(count: Int) throws {
        let placed = try regions(inputs: count, template: "grid")
        #expect(placed.map(\.content) == (0..<count).map { .input($0) })
        #expect(placed.map(\.origin) == (0..<count).map { .templateSlot($0) })
        #expect(placed.allSatisfy { $0.rect.x % 2 == 0 && $0.rect.y % 2 == 0 && $0.rect.width % 2 == 0 && $0.rect.height % 2 == 0 })
        #expect(placed.allSatisfy { $0.renderMode == .crop && $0.alpha == 255 })
        // Columns per row of the variant chosen for `count`.
        let columns = [1: 1, 2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 3, 9: 3][count] ?? 4
        let rows = [1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 2][count] ?? (count <= 9 ? 3 : 4)
        #expect(Set(placed.map(\.rect.width)).count <= 2)
        #expect(placed[0].rect.height == [1: 720, 2: 360, 3: 240, 4: 180][rows])
        for (index, region) in placed.enumerated() {
            #expect(region.rect.x == (index % columns == 0 ? 0 : placed[index - 1].rect.maxX), "tiles meet along a row")
            #expect(region.rect.y == (index < columns ? 0 : placed[index - columns].rect.maxY), "tiles meet down a column")
        }
        if count == [1, 2, 4, 6, 9, 16].first(where: { $0 >= count }) {
            #expect(placed.map { $0.rect.width * $0.rect.height }.reduce(0, +) == 1280 * 720, "a full variant covers the canvas")
        }
    }

    @Test func gridVariantsForOneToNine() throws {
        #expect(try regions(inputs: 1, template: "grid").map(\.rect) == [rect(0, 0, 1280, 720)])
        #expect(try regions(inputs: 2, template: "grid").map(\.rect) == [rect(0, 0, 640, 720), rect(640, 0, 640, 720)])
        #expect(try regions(inputs: 3, template: "grid").map(\.rect)
            == [rect(0, 0, 640, 360), rect(640, 0, 640, 360), rect(0, 360, 640, 360)])
        #expect(try regions(inputs: 5, template: "grid").map(\.rect)
            == [rect(0, 0, 426, 360), rect(426, 0, 426, 360), rect(852, 0, 428, 360), rect(0, 360, 426, 360),
                rect(426, 360, 426, 360)])
        #expect(try regions(inputs: 9, template: "grid").map(\.rect).suffix(3)
            == [rect(0, 480, 426, 240), rect(426, 480, 426, 240), rect(852, 480, 428, 240)])
    }

    @Test func floatPutsTheFirstInputFullAndTheRestOnTop() throws {
        let placed = try regions(inputs: 3, template: "float")
        #expect(placed.map(\.content) == [.input(0), .input(1), .input(2)])
        #expect(placed[0].rect == rect(0, 0, 1280, 720))
        // 0.22 × 1280 = 281.6 → edges 972 and 1254; 0.22 × 720 = 158.4.
        #expect(placed[1].rect == rect(972, 14, 282, 158))
        #expect(placed[2].rect.x == 972 && placed[2].rect.y > placed[1].rect.maxY)
    }

    @Test func screenShareFitsTheScreenLeftAndStacksTheRest() throws {
        let alone = try regions(inputs: 1, template: "screen-share")
        #expect(alone.map(\.rect) == [rect(0, 0, 1280, 720)])
        #expect(alone[0].renderMode == .fit)
        let placed = try regions(inputs: 5, template: "screen-share")
        #expect(placed.map(\.rect) == [rect(0, 0, 960, 720), rect(960, 0, 320, 180), rect(960, 180, 320, 180),
                                       rect(960, 360, 320, 180), rect(960, 540, 320, 180)])
        #expect(placed.map(\.renderMode) == [.fit, .crop, .crop, .crop, .crop])
    }

    @Test func pkSplitsTheCanvasAndCentresExtraTiles() throws {
        #expect(try regions(inputs: 2, template: "pk").map(\.rect) == [rect(0, 0, 640, 720), rect(640, 0, 640, 720)])
        let three = try regions(inputs: 3, template: "pk")
        #expect(three[2].rect == rect(512, 554, 256, 144))
        #expect(three[2].rect.x + three[2].rect.width / 2 == 640, "the third input sits at the bottom centre")
        let five = try regions(inputs: 5, template: "pk")
        #expect(five.count == 5)
        #expect(five.suffix(3).map(\.rect.y) == [554, 554, 554])
    }

    @Test(arguments: [("grid", 16), ("float", 5), ("screen-share", 5), ("pk", 5), ("speaker", 6)])
    func tooManyInputsIsAnIssueNamingTheLimit(name: String, limit: Int) {
        let issues = TaskFixtures.issues(TaskFixtures.validate(document(inputs: limit + 1, template: name)))
        #expect(issues.map(\.path) == ["layout.template"])
        #expect(issues.first?.message.contains("at most \(limit) inputs") == true, "\(issues)")
    }

    @Test func explicitRegionsWin() throws {
        let explicit = #"[{"input": "i1", "x": 100, "y": 100, "width": 200, "height": 200}, {"image": "logo.png", "x": 0, "y": 0, "width": 64, "height": 64, "zOrder": -1}]"#
        let placed = try regions(inputs: 3, template: "grid", regions: explicit)
        // i0 and i2 fill the two-slot variant; i1 keeps only its own region, drawn after the slots
        // at the same zOrder; the logo at zOrder -1 draws first.
        #expect(placed.map(\.origin) == [.region(index: 1), .templateSlot(0), .templateSlot(1), .region(index: 0)])
        #expect(placed.map(\.content) == [.image(path: "/media/logo.png"), .input(0), .input(2), .input(1)])
        #expect(placed.map(\.rect) == [rect(0, 0, 64, 64), rect(0, 0, 640, 720), rect(640, 0, 640, 720), rect(100, 100, 200, 200)])
        // Explicit regions also make room: 17 inputs fit a 16-slot grid when one has its own region.
        let many = TaskFixtures.validate(document(inputs: 17, template: "grid",
                                                  regions: #"[{"input": "i16", "x": 0, "y": 0, "width": 2, "height": 2}]"#))
        #expect(TaskFixtures.issues(many).isEmpty)
    }

    @Test func explicitRegionsCoveringEveryInputLeaveTheTemplateEmpty() throws {
        let placed = try regions(inputs: 1, template: "pk", regions: #"[{"input": "i0", "x": 0, "y": 0, "width": 2, "height": 2}]"#)
        #expect(placed.map(\.origin) == [.region(index: 0)])
    }

    @Test func anUnknownTemplateListsTheValidNames() {
        let issues = TaskFixtures.issues(TaskFixtures.validate(document(inputs: 2, template: "Grid")))
        #expect(issues.map(\.description) == [#"layout.template: unknown template "Grid"; use float, grid, pk, screen-share or speaker"#])
    }

    // MARK: - The file format

    @Test func decodesAValidTemplate() throws {
        let json = """
            {"name": "duo", "description": "two", "variants": [
              {"slots": [{"x": 0, "y": 0, "width": 0.5, "height": 1, "renderMode": "fit", "backgroundColor": "#000000"},
                         {"x": 0.5, "y": 0, "width": 0.5, "height": 1, "zOrder": 2}]},
              {"slots": [{"x": 0, "y": 0, "width": 1, "height": 1}]}]}
            """
        let template = try TemplateLibrary.decode(Data(json.utf8), name: "duo").get()
        #expect(template.variants.map(\.slots.count) == [1, 2])
        #expect(template.variant(for: 2)?.slots[1] == TemplateSlot(x: 0.5, y: 0, width: 0.5, height: 1, zOrder: 2))
        #expect(template.variant(for: 2)?.slots[0].renderMode == .fit)
        #expect(template.variant(for: 3) == nil)
        #expect(template.variant(for: 0) == TemplateVariant(slots: []))
    }

    @Test(arguments: [
        (#"{"name": "t", "variants": [{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1, "widht": 1}]}]}"#,
         "variants[0].slots[0].widht"),
        (#"{"name": "other", "variants": [{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1}]}]}"#, "name"),
        (#"{"name": "t", "variants": []}"#, "variants"),
        (#"{"name": "t"}"#, "variants"),
        (#"{"name": "t", "variants": [{"slots": []}]}"#, "variants[0].slots"),
        (#"{"name": "t", "variants": [{"slots": [{"x": 0, "y": 0, "width": 0, "height": 1}]}]}"#, "variants[0].slots[0].width"),
        (#"{"name": "t", "variants": [{"slots": [{"x": 0, "y": 0, "width": 1}]}]}"#, "variants[0].slots[0].height"),
        (#"{"name": "t", "variants": [{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1, "renderMode": "zoom"}]}]}"#,
         "variants[0].slots[0].renderMode"),
        (#"{"name": "t", "variants": [{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1}]}, {"slots": [{"x": 0, "y": 0, "width": 1, "height": 1}]}]}"#,
         "variants[1]"),
    ])
    func refusesABrokenTemplate(json: String, path: String) {
        let result = TemplateLibrary.decode(Data(json.utf8), name: "t")
        guard case .failure(let failure) = result else {
            Issue.record("decoded a broken template")
            return
        }
        #expect(failure.issues.map(\.path) == [path], "\(failure)")
    }

    @Test func aLibraryLeavesOutBrokenFilesAndSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"name": "ok", "variants": [{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1}]}]}"#.utf8)
            .write(to: directory.appendingPathComponent("ok.json"))
        try Data("{".utf8).write(to: directory.appendingPathComponent("bad.json"))
        let library = TemplateLibrary(directory: directory)
        #expect(library.names == ["ok"])
        #expect(library.loadErrors.count == 1)
        #expect(library.loadErrors.first?.hasPrefix("bad.json: malformed JSON") == true)
    }
}
