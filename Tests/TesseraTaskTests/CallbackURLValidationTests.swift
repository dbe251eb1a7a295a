import Testing
import TesseraTask

@Suite struct CallbackURLValidationTests {
    static func result(_ url: String) -> Result<ResolvedTask, ValidationFailure> {
        let quoted = "\"" + url.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        return TaskFixtures.validate(TaskFixtures.base(setting: "callbackUrl", to: quoted))
    }

    @Test(arguments: ["http://127.0.0.1:9000/hooks", "https://hooks.example/tessera?room=42", "HTTPS://Hooks.Example/x",
                      "http://[::1]:8080/"])
    func acceptsHTTPURLsWithAHost(url: String) throws {
        let task = try #require(TaskFixtures.task(Self.result(url)))
        #expect(task.callbackUrl == url)
    }

    @Test(arguments: ["ftp://hooks.example/x", "file:///etc/passwd", "hooks.example/x", "http:///no-host", "http://",
                      "https://hooks example/x", "", "javascript:alert(1)"])
    func refusesOthersAtItsPath(url: String) {
        let issues = TaskFixtures.issues(Self.result(url))
        #expect(issues.map(\.path) == ["callbackUrl"], "\(issues)")
    }

    @Test func refusesOneLongerThan2048Characters() {
        let prefix = "https://hooks.example/"
        let fits = prefix + String(repeating: "a", count: 2048 - prefix.count)
        #expect(TaskFixtures.issues(Self.result(fits)).isEmpty)
        let issues = TaskFixtures.issues(Self.result(fits + "a"))
        #expect(issues.map(\.path) == ["callbackUrl"])
        #expect(issues.first?.message.contains("2048") == true)
    }

    @Test func aWrongTypeIsOneIssue() {
        let issues = TaskFixtures.issues(TaskFixtures.validate(TaskFixtures.base(setting: "callbackUrl", to: "42")))
        #expect(issues.map(\.path) == ["callbackUrl"])
    }
}

extension CallbackURLValidationTests {
    /// The service itself posts to a callback: the operator's deny-list covers it too.
    @Test func deniedCallbackHostIsRefused() {
        let document = TaskFixtures.base(setting: "callbackUrl", to: #""http://169.254.169.254/latest/meta-data""#)
        let denied = TaskFixtures.issues(TaskFixtures.validate(document, options: URLSafetyValidationTests.options(denying: ["169.254.0.0/16"])))
        #expect(denied.map(\.path) == ["callbackUrl"], "\(denied)")
        #expect(TaskFixtures.issues(TaskFixtures.validate(document)).isEmpty)
    }
}
