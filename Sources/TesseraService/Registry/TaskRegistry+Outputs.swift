import Logging
import TesseraTask
import TesseraStore

/// One writer per recording, in the whole cluster, and no new recording on a disk running low.
extension TaskRegistry {
    /// `OutputInUse` at the first recording output another running task holds, asking the store
    /// without writing to it; the keys' last holders otherwise.
    func refuseOutputsInUse(_ claims: [(index: Int, key: String)], plan: ResolvedTask) async throws -> [String: String] {
        guard !claims.isEmpty else { return [:] }
        do {
            let holders = try await store.lastHolders(of: claims.map(\.key))
            for (index, key) in claims {
                guard let holder = holders[key], holder != plan.taskId,
                      try await store.task(holder)?.desired == .running else { continue }
                throw ServiceError.outputInUse(index: index, url: URLRedaction.redact(plan.outputs[index].url), holder: holder)
            }
            return holders
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
    }

    /// Holds the task's recording outputs in the store; `OutputInUse` at the first one another
    /// running task holds.
    func claimOutputs(_ claims: [(index: Int, key: String)], plan: ResolvedTask) async throws {
        guard !claims.isEmpty else { return }
        let conflict: OutputClaimConflict?
        do {
            conflict = try await store.claimOutputs(claims.map(\.key), taskId: plan.taskId)
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
        guard let conflict, let index = claims.first(where: { $0.key == conflict.key })?.index else { return }
        throw ServiceError.outputInUse(index: index, url: URLRedaction.redact(plan.outputs[index].url), holder: conflict.holder)
    }

    /// The output directory's free bytes now, and whether that is below `--min-free-bytes`.
    public nonisolated func outputSpace() -> (freeBytes: Int64?, low: Bool) {
        let free = FileSystemSpace.freeBytes(atPath: configuration.outputDirectory)
        return (free, free.map { $0 < configuration.minFreeBytes } ?? false)
    }

    /// Warns once when the output directory runs low, and says once when space is back.
    func checkDiskSpace() {
        guard let free = outputSpace().freeBytes else { return }
        let metadata: Logger.Metadata = ["output_dir": .string(configuration.outputDirectory), "free_bytes": "\(free)",
                                         "min_free_bytes": "\(configuration.minFreeBytes)"]
        switch diskWatch.observe(freeBytes: free) {
        case .becameLow: logger.warning("the output directory is low on space: new recording tasks are refused here", metadata: metadata)
        case .recovered: logger.info("the output directory has space again: recording tasks are taken", metadata: metadata)
        case .none: break
        }
    }

    /// A node low on disk space starts no new recording (a full disk would fail it at once). HLS
    /// sent to an HTTP origin writes nothing here and is not refused.
    func refuseRecordingWhenLowOnSpace(_ claims: [(index: Int, key: String)], plan: ResolvedTask) throws {
        let local = claims.filter { claim in
            if case .hls(let settings) = plan.outputs[claim.index].kind, settings.overHTTP, plan.outputs[claim.index].upload == nil {
                return false
            }
            return true
        }
        guard !local.isEmpty else { return }
        let claims = local
        let space = outputSpace()
        guard space.low, let free = space.freeBytes else { return }
        checkDiskSpace()
        throw ServiceError(.insufficientStorage,
                           message: "this node's output directory has \(free) bytes free, below its --min-free-bytes of \(configuration.minFreeBytes): it starts no new recording",
                           path: "outputs[\(claims[0].index)].url", retryAfterSeconds: 60)
    }
}
