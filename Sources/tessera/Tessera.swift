import ArgumentParser

@main
struct Tessera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Server-side stream mixer and CDN relay: composite, mix, encode once, publish.",
        subcommands: [MixCommand.self, ValidateCommand.self, PreviewCommand.self, ServeCommand.self, WorkerSubcommand.self,
                      HealthcheckCommand.self]
    )
}
