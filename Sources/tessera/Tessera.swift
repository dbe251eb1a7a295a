import ArgumentParser

/// The root command is async so that `serve` runs its server as an `AsyncParsableCommand`; the
/// other subcommands are synchronous (their work runs on threads of their own).
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Server-side stream mixer and CDN relay: composite, mix, encode once, publish.",
        subcommands: [MixCommand.self, ValidateCommand.self, PreviewCommand.self, ServeCommand.self, WorkerSubcommand.self, ProbeSubcommand.self,
                      HealthcheckCommand.self]
    )
}
