import TesseraWorkerProtocol

/// Finds the webhook events between two consecutive statuses of one task. Pure: no clock, no
/// network, so the rules below are tested directly.
extension WebhookChange {
    /// The changes from `previous` to `current`, in the order they are reported:
    ///
    /// - no `previous` (the task's first status): only `task.state` with no `previousState`; the
    ///   inputs and outputs it starts with are in the event's `status`, not announced one by one;
    /// - inputs by `id`: removed, added, then state changes, in `current` order (removed ones in
    ///   `previous` order);
    /// - outputs by redacted `url`, paired in order (two stream keys on one path redact alike);
    /// - `task.state` comes first when the task moves to `starting` or `running` and last when it
    ///   moves to `stopping`, `stopped` or `failed`, so the task's own events bracket those of
    ///   its inputs and outputs.
    ///
    /// - `input.rtp` for each input whose allocated RTP ports are new (the task's first status
    ///   on a node, after `task.state`) or changed.
    /// - `input.drawSize` for each input whose `drawSize` is new or changed, or gone while the
    ///   input stays (no region shows it any more), after `input.rtp`.
    ///
    /// Counters (`frames`, `bytes`, …) and `lastError` alone never make an event.
    public static func changes(from previous: TaskStatus?, to current: TaskStatus) -> [WebhookChange] {
        guard let previous else {
            return [.task(TaskChange(state: current.state, previousState: nil, reason: current.reason))]
                + rtpChanges(from: [], to: current.inputs).map(WebhookChange.inputRTP)
                + drawSizeChanges(from: [], to: current.inputs).map(WebhookChange.inputDrawSize)
        }
        let parts = inputChanges(from: previous.inputs, to: current.inputs).map(WebhookChange.input)
            + rtpChanges(from: previous.inputs, to: current.inputs).map(WebhookChange.inputRTP)
            + drawSizeChanges(from: previous.inputs, to: current.inputs).map(WebhookChange.inputDrawSize)
            + outputChanges(from: previous.outputs, to: current.outputs).map(WebhookChange.output)
            + uploadChanges(from: previous.outputs, to: current.outputs).map(WebhookChange.outputUploaded)
        guard previous.state != current.state else { return parts }
        let task = WebhookChange.task(TaskChange(state: current.state, previousState: previous.state, reason: current.reason))
        switch current.state {
        case .starting, .running: return [task] + parts
        case .stopping, .stopped, .failed: return parts + [task]
        }
    }

    static func inputChanges(from previous: [InputStatus], to current: [InputStatus]) -> [InputChange] {
        var removed: [InputChange] = []
        for old in previous where !current.contains(where: { $0.id == old.id }) {
            removed.append(InputChange(id: old.id, state: nil, previousState: old.state, lastError: old.lastError))
        }
        var added: [InputChange] = []
        var changed: [InputChange] = []
        for new in current {
            guard let old = previous.first(where: { $0.id == new.id }) else {
                added.append(InputChange(id: new.id, state: new.state, previousState: nil, lastError: new.lastError))
                continue
            }
            if old.state != new.state {
                changed.append(InputChange(id: new.id, state: new.state, previousState: old.state, lastError: new.lastError))
            }
        }
        return removed + added + changed
    }

    static func rtpChanges(from previous: [InputStatus], to current: [InputStatus]) -> [InputChange] {
        current.compactMap { new in
            guard let rtp = new.rtp, previous.first(where: { $0.id == new.id })?.rtp != rtp else { return nil }
            return InputChange(id: new.id, state: new.state, previousState: nil, rtp: rtp)
        }
    }

    static func drawSizeChanges(from previous: [InputStatus], to current: [InputStatus]) -> [InputChange] {
        current.compactMap { new in
            guard previous.first(where: { $0.id == new.id })?.drawSize != new.drawSize else { return nil }
            return InputChange(id: new.id, state: new.state, previousState: nil, drawSize: new.drawSize)
        }
    }

    /// `output.uploaded` for each file of an output whose upload is newly `uploaded`.
    static func uploadChanges(from previous: [OutputStatus], to current: [OutputStatus]) -> [OutputChange] {
        current.flatMap { output in
            let before = previous.first(where: { $0.url == output.url })?.uploads ?? []
            return (output.uploads ?? []).filter { upload in
                upload.state == .uploaded && !before.contains { $0.file == upload.file && $0.state == .uploaded }
            }.map { OutputChange(url: output.url, state: output.state, previousState: output.state, upload: $0) }
        }
    }

    static func outputChanges(from previous: [OutputStatus], to current: [OutputStatus]) -> [OutputChange] {
        // Pair each current output with the first unpaired previous one of the same redacted URL.
        var unpaired = previous
        var added: [OutputChange] = []
        var changed: [OutputChange] = []
        for new in current {
            guard let index = unpaired.firstIndex(where: { $0.url == new.url }) else {
                added.append(OutputChange(url: new.url, state: new.state, previousState: nil, lastError: new.lastError))
                continue
            }
            let old = unpaired.remove(at: index)
            if old.state != new.state {
                changed.append(OutputChange(url: new.url, state: new.state, previousState: old.state, lastError: new.lastError))
            }
        }
        let removed = unpaired.map { OutputChange(url: $0.url, state: nil, previousState: $0.state, lastError: $0.lastError) }
        return removed + added + changed
    }
}
