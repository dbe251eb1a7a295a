/// `inputs[].sequence` and `inputs[].gaps`: an input replayed from the files it was recorded in,
/// and the spans it was absent, all on the task's clock in milliseconds.
extension ValidationContext {
    /// The longest offset a document may name (a week), which also keeps ms × 1000 inside Int64.
    static let maxTimelineMs = 604_800_000

    /// Files in order, each resolved as a file input's `url` is, starts strictly increasing.
    mutating func resolveSequence(_ files: [SequenceFileSpec], at path: String) -> ResolvedInput.Source? {
        let before = issues.count
        guard options.offline else {
            issues.add(path, "a sequence replays recorded files: it is played by `tessera mix`, not in a live task")
            return nil
        }
        if files.isEmpty { issues.add(path, "must name at least one file") }
        var resolved: [TimedFile] = []
        var previousStart: Int?
        for (index, file) in files.enumerated() {
            let element = FieldPath.element(path, index)
            if !(0...Self.maxTimelineMs).contains(file.startAtMs) {
                issues.add(element + ".startAtMs", "must be between 0 and \(Self.maxTimelineMs) (7 days)")
            } else if let previousStart, file.startAtMs <= previousStart {
                issues.add(element + ".startAtMs", "must be after the previous file's start (\(previousStart)): files play in order")
            }
            previousStart = max(previousStart ?? file.startAtMs, file.startAtMs)
            guard let source = resolveInputURL(file.url, at: element + ".url") else { continue }
            guard case .file(let filePath) = source else {
                issues.add(element + ".url", "a sequence plays files; a network URL cannot be one of them")
                continue
            }
            resolved.append(TimedFile(path: filePath, startAtMicroseconds: Int64(file.startAtMs) * 1000))
        }
        return issues.count == before ? .sequence(resolved) : nil
    }

    /// Sorted, disjoint spans with `fromMs < toMs`; empty when absent.
    mutating func resolveGaps(_ gaps: [GapSpec]?, at path: String) -> [InputGap] {
        guard let gaps else { return [] }
        var resolved: [InputGap] = []
        var previousEnd: Int?
        for (index, gap) in gaps.enumerated() {
            let element = FieldPath.element(path, index)
            guard (0...Self.maxTimelineMs).contains(gap.fromMs), (0...Self.maxTimelineMs).contains(gap.toMs) else {
                issues.add(element, "fromMs and toMs must be between 0 and \(Self.maxTimelineMs) (7 days)")
                continue
            }
            guard gap.fromMs < gap.toMs else {
                issues.add(element + ".toMs", "must be after fromMs (\(gap.fromMs))")
                continue
            }
            if let previousEnd, gap.fromMs < previousEnd {
                issues.add(element + ".fromMs", "must not be before the previous gap's end (\(previousEnd)): gaps are sorted and do not overlap")
                continue
            }
            previousEnd = gap.toMs
            resolved.append(InputGap(fromMicroseconds: Int64(gap.fromMs) * 1000, toMicroseconds: Int64(gap.toMs) * 1000))
        }
        return resolved
    }
}
