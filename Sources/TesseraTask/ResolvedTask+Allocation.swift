extension ResolvedTask {
    /// The plan once the service has chosen ports for its `rtp.allocate` inputs: each input named
    /// in `sdps` receives by the SDP written for it, keeping its sender filter. This is what the
    /// document with those inputs rewritten as `rtp.sdp` validates to (the service parses each SDP
    /// it writes), so a plan is not validated a second time for its ports.
    public func allocating(_ sdps: [String: String]) -> ResolvedTask {
        var plan = self
        for index in plan.inputs.indices {
            guard case .rtpAllocate(_, let source) = plan.inputs[index].source, let sdp = sdps[plan.inputs[index].id] else { continue }
            plan.inputs[index].source = .rtpSDP(sdp: sdp, source: source)
        }
        return plan
    }
}
