import Testing
import TesseraCore

@Suite struct SHA256Tests {
    /// FIPS 180-4 examples, plus lengths around the 55/56/64-byte padding boundaries.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func knownDigests(message: String, hex: String) {
        #expect(SHA256.hash(Array(message.utf8)).lowercaseHex == hex)
    }

    @Test func aMillionAs() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalize().lowercaseHex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func updatingInPiecesEqualsOneCall() {
        let message = Array((0..<200).map { UInt8($0) })
        var hasher = SHA256()
        hasher.update(message[0..<7])
        hasher.update(message[7..<130])
        hasher.update(message[130...])
        #expect(hasher.finalize() == SHA256.hash(message))
    }
}

@Suite struct HMACSHA256Tests {
    static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// RFC 4231 test cases 1–4, 6 and 7 (case 5 checks a truncated output, which HMAC here never makes).
    @Test(arguments: [
        (String(repeating: "0b", count: 20), "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (String(repeating: "aa", count: 131),
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (String(repeating: "aa", count: 131),
         "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e6420612"
            + "06c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564"
            + "206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func rfc4231(keyHex: String, dataHex: String, expected: String) {
        #expect(HMACSHA256.hexAuthenticationCode(key: Self.bytes(hex: keyHex), message: Self.bytes(hex: dataHex)) == expected)
    }

    /// A key exactly one block long is used as is, not hashed.
    @Test func blockSizedKey() {
        let key = [UInt8](repeating: 0x61, count: 64)
        // python3 -c 'import hmac; print(hmac.new(b"a"*64, b"body", "sha256").hexdigest())'
        #expect(HMACSHA256.hexAuthenticationCode(key: key, message: Array("body".utf8))
                == "cbeec3a0761ed7c931e1afc6a0aa9863defc93372b60911aaaa523c426dde73c")
    }
}
