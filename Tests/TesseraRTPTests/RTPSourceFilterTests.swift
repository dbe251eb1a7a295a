import Foundation
import Testing
import TesseraRTP

@Suite struct RTPSourceFilterTests {
    static let sender: [UInt8] = [10, 0, 0, 7]
    /// `::ffff:10.0.0.7`: how a dual-stack socket reports an IPv4 sender.
    static let mappedSender: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 7]
    static let loopback6: [UInt8] = Array(repeating: 0, count: 15) + [1]

    @Test(arguments: [
        // text, address, port, admitted
        ("10.0.0.7", RTPSourceFilterTests.sender, 5004, true),
        ("10.0.0.7", [10, 0, 0, 8], 5004, false),
        ("10.0.0.7", RTPSourceFilterTests.mappedSender, 40000, true),
        ("10.0.0.0/24", [10, 0, 0, 255], 1, true),
        ("10.0.0.0/24", [10, 0, 1, 1], 1, false),
        ("10.0.0.7:5004", RTPSourceFilterTests.sender, 5004, true),
        ("10.0.0.7:5004", RTPSourceFilterTests.sender, 5005, false),
        ("10.0.0.0/8:5004", RTPSourceFilterTests.mappedSender, 5004, true),
        ("::1", RTPSourceFilterTests.loopback6, 9, true),
        ("::1", [127, 0, 0, 1], 9, false),
        ("[::1]:5004", RTPSourceFilterTests.loopback6, 5004, true),
        ("[::1]:5004", RTPSourceFilterTests.loopback6, 5006, false),
        ("[2001:db8::/32]:5004", [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [9], 5004, true),
        ("2001:db8::/32", [0x20, 0x01, 0x0d, 0xb9] + Array(repeating: 0, count: 12), 5004, false),
        // An IPv4-mapped filter means the IPv4 sender, however the socket reports it.
        ("::ffff:10.0.0.7", RTPSourceFilterTests.sender, 1, true),
        ("::ffff:10.0.0.0/120", RTPSourceFilterTests.mappedSender, 1, true),
        ("0.0.0.0/0", [192, 0, 2, 1], 1, true),
    ] as [(String, [UInt8], UInt16, Bool)])
    func admits(text: String, address: [UInt8], port: UInt16, admitted: Bool) throws {
        let filter = try RTPSourceFilter(text)
        #expect(filter.admits(address: address, port: port) == admitted)
        #expect(filter.description == text)
    }

    @Test(arguments: ["", "sfu.example", "10.0.0.256", "10.0.0.0/33", "10.0.0.7:0", "10.0.0.7:65536", "10.0.0.7:",
                      "[::1", "[::1]5004", "[10.0.0.7]:5004", "::1:5004:x", "10.0.0.7/24/1", "[::1]:http"])
    func refuses(text: String) {
        #expect(throws: RTPSourceFilter.Invalid.self) { try RTPSourceFilter(text) }
    }

    @Test func codedAsItsText() throws {
        let filter = try RTPSourceFilter("[::1]:5004")
        let data = try JSONEncoder().encode([filter])
        #expect(String(decoding: data, as: UTF8.self) == #"["[::1]:5004"]"#)
        #expect(try JSONDecoder().decode([RTPSourceFilter].self, from: data) == [filter])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([RTPSourceFilter].self, from: Data(#"["x"]"#.utf8)) }
    }
}
