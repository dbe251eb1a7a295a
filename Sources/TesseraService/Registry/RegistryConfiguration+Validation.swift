import TesseraTask

extension RegistryConfiguration {
    /// How this server validates a task document: paths confined to its roots, its limits and its
    /// deny-list. One place, so `POST /v1/tasks` and `POST /v1/validate` can never disagree.
    public var validationOptions: ValidationOptions {
        var options = ValidationOptions.serve(mediaRoot: mediaRoot, outputDirectory: outputDirectory)
        options.maxInputs = maxInputs
        options.maxRegions = maxRegions
        options.maxOutputs = maxOutputs
        options.objectStorage = storage != nil
        // The settings checked every entry at start-up; should one still not parse, deny every
        // network host rather than none.
        options.deniedHosts = (try? HostDenyList(deniedHosts)) ?? HostDenyList.everything
        return options
    }
}
