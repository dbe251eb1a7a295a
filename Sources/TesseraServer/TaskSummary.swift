import TesseraComposition
import TesseraTask

/// The answer of `POST /v1/validate` for a valid document (`{"valid": true, …}`), and the layout
/// part of `GET /v1/tasks/{taskId}/document`: what the server made of the document, with every
/// region in canvas pixels as it will be drawn, so a client can draw it without resolving
/// templates or relative units itself.
struct TaskSummary: Encodable {
    var valid = true
    var taskId: String
    var mode: String
    var inputs: [String]
    var video: Video?
    var outputs: Int
    var layout: Layout?

    struct Video: Encodable {
        var width: Int
        var height: Int
        var fps: Int
    }

    struct Layout: Encodable {
        var canvasWidth: Int
        var canvasHeight: Int
        /// In draw order (bottom first), as `tessera preview` numbers them.
        var regions: [Region]
        /// True when a template places some regions: they have no entry in `layout.regions`.
        var template: Bool
    }

    struct Region: Encodable {
        /// Index in the document's `layout.regions`, or in the template's slots.
        var documentIndex: Int
        /// `input`, `image` or `text`.
        var kind: String
        var input: String?
        var label: String
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var alpha: Double
        var renderMode: String
    }

    init(_ task: ResolvedTask, usesTemplate: Bool) {
        let ids = task.inputs.map(\.id)
        taskId = task.taskId
        mode = task.mode.rawValue
        inputs = ids
        video = task.video.map { Video(width: $0.width, height: $0.height, fps: $0.fps) }
        outputs = task.outputs.count
        layout = task.layout.map { layout -> Layout in
            let labels = LayoutPreview.labels(for: layout, inputIDs: ids)
            let regions = zip(layout.regions, labels).map { region, label -> Region in
                var input: String?
                let kind: String
                switch region.content {
                case .input(let index): kind = "input"; input = index < ids.count ? ids[index] : nil
                case .image: kind = "image"
                case .text: kind = "text"
                }
                // Alpha is kept as an 8-bit weight: back to the document's 0–1 scale, 3 decimals.
                let alpha = (Double(region.alpha) / 255 * 1000).rounded() / 1000
                return Region(documentIndex: region.documentIndex, kind: kind, input: input, label: label,
                              x: region.rect.x, y: region.rect.y, width: region.rect.width, height: region.rect.height,
                              alpha: alpha, renderMode: region.renderMode.rawValue)
            }
            return Layout(canvasWidth: layout.canvasWidth, canvasHeight: layout.canvasHeight, regions: regions,
                          template: usesTemplate)
        }
    }
}
