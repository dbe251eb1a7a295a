import Foundation
import TesseraTask

/// The directory of this target's resources (`openapi.yaml`, `console/`, `examples/`): the bundle
/// beside an installed binary first, SwiftPM's build-path bundle last (see `InstalledResources`).
enum ServerResources {
    static let directory: URL? =
        InstalledResources.directory(ofBundle: "Tessera_TesseraServer.resources") ?? Bundle.module.resourceURL
}
