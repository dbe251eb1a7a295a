import Foundation
import Testing
import TesseraComposition

@Suite struct TaskValidatorLayoutTests {
    /// The base task with `regions` as its layout.
    private func layout(_ regions: String, template: String? = nil) throws -> ResolvedLayout {
        var document = TaskFixtures.base(setting: "layout.regions", to: regions)
        if let template { document = document.setting("layout.template", to: .string(template)) }
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document)))
        return try #require(task.layout)
    }

    @Test(arguments: [
        // x, y, width, height as written → snapped down to even, toward −∞
        ([0.0, 0, 640, 360], PixelRect(x: 0, y: 0, width: 640, height: 360)),
        ([3, 5, 101, 99], PixelRect(x: 2, y: 4, width: 100, height: 98)),
        ([3.9, 5.99, 101.9, 2.5], PixelRect(x: 2, y: 4, width: 100, height: 2)),
        ([-3, -1, 10, 10], PixelRect(x: -4, y: -2, width: 10, height: 10)),
        ([-4, -0.5, 10, 10], PixelRect(x: -4, y: -2, width: 10, height: 10)),
        ([1270, 710, 100, 100], PixelRect(x: 1270, y: 710, width: 100, height: 100)),
    ])
    func snapsPixelGeometryDownToEven(values: [Double], expected: PixelRect) throws {
        let region = #"[{"input": "anchor", "x": \#(values[0]), "y": \#(values[1]), "width": \#(values[2]), "height": \#(values[3])}]"#
        #expect(try layout(region).regions.map(\.rect) == [expected])
    }

    @Test func snapsDownToEvenForAnyValue() {
        func snap(_ value: Double) -> Int {
            let json = #"[{"input": "anchor", "x": \#(value), "y": 0, "width": 10, "height": 10}]"#
            return (try? layout(json).regions.first?.rect.x) ?? .min
        }
        #expect([-3.0, -2.5, -2, -1, -0.5, 0, 0.5, 1, 1.9, 2, 3, 4.99].map(snap) == [-4, -4, -2, -2, -2, 0, 0, 0, 0, 2, 2, 4])
    }

    @Test func relativeUnitsScaleByTheCanvas() throws {
        let regions = """
            [{"input": "anchor", "units": "relative", "x": 0.5, "y": 0.25, "width": 0.5, "height": 0.5},
             {"input": "guest", "units": "relative", "x": -0.1, "y": 0.3333, "width": 0.3333, "height": 1.2},
             {"input": "guest", "units": "pixels", "x": 1, "y": 1, "width": 3, "height": 3}]
            """
        #expect(try layout(regions).regions.map(\.rect) == [
            PixelRect(x: 640, y: 180, width: 640, height: 360),
            PixelRect(x: -128, y: 238, width: 426, height: 864),
            PixelRect(x: 0, y: 0, width: 2, height: 2),
        ])
    }

    @Test func aRelativeSizeUnderTwoPixelsIsAnIssue() {
        let document = TaskFixtures.base(setting: "layout.regions[0]", to: #"{"input": "anchor", "units": "relative", "x": 0, "y": 0, "width": 0.001, "height": 1}"#)
        #expect(TaskFixtures.issues(TaskFixtures.validate(document)).map(\.path) == ["layout.regions[0].width"])
    }

    @Test func drawsByZOrderThenArrayOrder() throws {
        let regions = """
            [{"input": "anchor", "x": 0, "y": 0, "width": 2, "height": 2, "zOrder": 5},
             {"input": "guest", "x": 0, "y": 0, "width": 2, "height": 2},
             {"image": "logo.png", "x": 0, "y": 0, "width": 2, "height": 2, "zOrder": 5},
             {"input": "anchor", "x": 0, "y": 0, "width": 2, "height": 2, "zOrder": -1},
             {"input": "guest", "x": 0, "y": 0, "width": 2, "height": 2},
             {"image": "logo.png", "x": 0, "y": 0, "width": 2, "height": 2, "zOrder": 5},
             {"input": "guest", "x": 0, "y": 0, "width": 2, "height": 2, "zOrder": 0}]
            """
        #expect(try layout(regions).regions.map(\.documentIndex) == [3, 1, 4, 6, 0, 2, 5])
    }

    @Test func regionFieldsResolve() throws {
        let regions = """
            [{"input": "guest", "x": 0, "y": 0, "width": 2, "height": 2, "alpha": 0.5, "renderMode": "stretch",
              "backgroundColor": "#FFFFFF", "placeholderImage": "ph.jpg"},
             {"image": "logo.png", "x": 0, "y": 0, "width": 2, "height": 2, "alpha": 0}]
            """
        let resolved = try layout(regions).regions
        #expect(resolved[0] == ResolvedRegion(documentIndex: 0, content: .input(1), rect: PixelRect(x: 0, y: 0, width: 2, height: 2),
                                              alpha: 128, renderMode: .stretch, backgroundColor: YUVColor(hex: "#FFFFFF"),
                                              placeholderImage: "/media/ph.jpg"))
        #expect(resolved[1].content == .image(path: "/media/logo.png"))
        #expect(resolved[1].alpha == 0)
        #expect(resolved[1].origin == .region(index: 1))
    }

    @Test func oneInputMayFillSeveralRegionsAndAnEmptyLayoutIsBackgroundOnly() throws {
        let twice = try layout(#"[{"input": "anchor", "x": 0, "y": 0, "width": 2, "height": 2}, {"input": "anchor", "x": 4, "y": 0, "width": 2, "height": 2}]"#)
        #expect(twice.regions.map(\.content) == [.input(0), .input(0)])
        #expect(try layout("[]").regions.isEmpty)
    }
}
