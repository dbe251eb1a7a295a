import ArgumentParser

/// The root command is async so that `serve` runs its server as an `AsyncParsableCommand`; the
/// other subcommands are synchronous (their work runs on threads of their own).
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Server-side stream mixer and CDN relay: composite, mix, encode once, publish.",
        version: TesseraVersion.current,
        subcommands: [MixCommand.self, ValidateCommand.self, PreviewCommand.self, ServeCommand.self, WorkerSubcommand.self, ProbeSubcommand.self,
                      HealthcheckCommand.self, VersionCommand.self]
    )
}

/// This build's version: `tessera --version` and `tessera version` print it. The same number as
/// the HTTP API's (`info.version` of openapi.yaml) while the two move together.
enum TesseraVersion {
    static let current = "1.0.0"
}

/// `tessera version`: the version, for those who type it as a word.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version (also: tessera --version).")

    func run() { print(TesseraVersion.current) }
}
