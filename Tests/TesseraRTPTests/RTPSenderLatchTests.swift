import Testing
import TesseraRTP

@Suite struct RTPSenderLatchTests {
    let sfu = RTPEndpoint(address: [10, 0, 0, 7], port: 40_000)
    let stranger = RTPEndpoint(address: [10, 0, 0, 66], port: 40_000)

    @Test func latchesTheFirstSenderAndRefusesOthersWhileItIsActive() {
        var latch = RTPSenderLatch(silenceMicroseconds: 2_000_000)
        #expect(latch.admit(sfu, nowMicroseconds: 0) == .accept)
        #expect(latch.admit(stranger, nowMicroseconds: 10_000) == .refuse(latched: sfu))
        #expect(latch.admit(sfu, nowMicroseconds: 1_500_000) == .accept)
        // Silent for less than the timeout: still refused.
        #expect(latch.admit(stranger, nowMicroseconds: 3_400_000) == .refuse(latched: sfu))
        #expect(latch.admit(stranger, nowMicroseconds: 3_500_000) == .switched(from: sfu))
        #expect(latch.admit(sfu, nowMicroseconds: 3_500_001) == .refuse(latched: stranger))
    }

    @Test func anotherSocketOfTheSameHostTakesOverSooner() {
        var latch = RTPSenderLatch(silenceMicroseconds: 2_000_000, sameHostSilenceMicroseconds: 500_000)
        let rejoined = sfu.withPort(40_002)
        #expect(latch.admit(sfu, nowMicroseconds: 0) == .accept)
        #expect(latch.admit(rejoined, nowMicroseconds: 400_000) == .refuse(latched: sfu))
        #expect(latch.admit(rejoined, nowMicroseconds: 500_000) == .switched(from: sfu))
    }

    @Test func ipv4MappedAddressesAreTheIPv4Sender() {
        let mapped = RTPEndpoint(address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 7], port: 40_000)
        #expect(mapped == sfu)
        #expect(mapped.description == "10.0.0.7:40000")
        #expect(RTPEndpoint(address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], port: 5).description == "[0:0:0:0:0:0:0:1]:5")
    }
}
