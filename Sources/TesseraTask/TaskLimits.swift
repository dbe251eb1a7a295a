/// How much one task may ask for when nothing lowers it: `tessera mix` uses these, and they are
/// `tessera serve`'s defaults for `--max-inputs`, `--max-regions` and `--max-outputs` (which may
/// only lower the outputs: SPEC §1 allows at most 10).
public enum TaskLimits {
    public static let maxInputs = 32
    public static let maxRegions = 64
    public static let maxOutputs = 10
}
