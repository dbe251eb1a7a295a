import Foundation
import TesseraComposition

/// The layout templates a task may name, read once from JSON files (`NAME.json`).
///
/// `bundled` holds the ones shipped in the TesseraTask resource bundle (`Layouts/templates` in the
/// repository). Note for packaging: SwiftPM looks for that bundle,
/// `Tessera_TesseraTask.resources`, next to the executable, so an install must copy it along.
public struct TemplateLibrary: Sendable {
    private let templates: [String: LayoutTemplate]
    /// Problems met while loading (a file that is not a valid template is left out, not fatal).
    public let loadErrors: [String]

    public init(templates: [LayoutTemplate], loadErrors: [String] = []) {
        self.templates = Dictionary(templates.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.loadErrors = loadErrors
    }

    /// Every `*.json` file in `directory`, each named by its file name.
    public init(directory: URL) {
        // Layouts/templates is a symbolic link; list what it points to.
        let directory = directory.resolvingSymlinksInPath()
        var loaded: [LayoutTemplate] = []
        var errors: [String] = []
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        if files.isEmpty { errors.append("no templates found in \(directory.path)") }
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where file.pathExtension == "json" {
            let name = file.deletingPathExtension().lastPathComponent
            do {
                let data = try Data(contentsOf: file)
                switch TemplateLibrary.decode(data, name: name) {
                case .success(let template): loaded.append(template)
                case .failure(let failure):
                    errors += failure.issues.map { "\(file.lastPathComponent): \($0)" }
                }
            } catch {
                errors.append("\(file.lastPathComponent): \(error.localizedDescription)")
            }
        }
        self.init(templates: loaded, loadErrors: errors)
    }

    /// The templates shipped with Tessera, loaded on first use and then kept.
    public static let bundled: TemplateLibrary = {
        // A library must not stop the process on a bad install, which `Bundle.module` would do.
        if let resources = InstalledResources.directory(ofBundle: "Tessera_TesseraTask.resources") {
            return TemplateLibrary(directory: resources.appendingPathComponent("templates"))
        }
        guard let resources = Bundle.module.resourceURL else {
            return TemplateLibrary(templates: [], loadErrors: ["the TesseraTask resource bundle has no resources"])
        }
        return TemplateLibrary(directory: resources.appendingPathComponent("templates"))
    }()

    /// Template names, sorted.
    public var names: [String] { templates.keys.sorted() }

    public func template(named name: String) -> LayoutTemplate? { templates[name] }
}
