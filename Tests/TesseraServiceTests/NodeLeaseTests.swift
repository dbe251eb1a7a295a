import TesseraService
import Testing

@Suite struct NodeLeaseTests {
    @Test func fencesAfterHalfTheTimeoutWithoutARenewal() {
        var lease = NodeLease(timeoutSeconds: 10)
        #expect(!lease.mustFence(at: 100))
        #expect(!lease.isHealthy(at: 100))
        lease.renewed(at: 100)
        #expect(lease.isHealthy(at: 104.9))
        #expect(!lease.mustFence(at: 105))
        #expect(lease.mustFence(at: 105.1))
        #expect(!lease.isHealthy(at: 105.1))
        // Workers stop by themselves before another node may take over (after the full timeout).
        #expect(lease.workerLeaseSeconds < lease.timeoutSeconds)
    }
}
