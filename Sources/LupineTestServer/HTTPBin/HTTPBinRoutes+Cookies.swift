import Foundation
import Hummingbird

extension HTTPBinRoutes {
    /// `/cookies`, `/cookies/set?name=value`, `/cookies/set/:name/:value` and
    /// `/cookies/delete?name`.
    func registerCookies(on router: Router<Context>) {
        router.get("/cookies") { request, _ in
            var cookies: [String: JSONValue] = [:]
            for header in request.headers[values: .cookie] {
                for pair in header.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = parts[0].trimmingCharacters(in: .whitespaces)
                    guard !name.isEmpty else { continue }
                    cookies[name] = .string(parts.count > 1 ? String(parts[1]) : "")
                }
            }
            return try Response.json(.object(["cookies": .object(cookies)]))
        }
        router.get("/cookies/set") { request, _ in
            let pairs = FormURLEncoding.parse(request.uri.query ?? "")
            return Self.redirectToCookies(setting: pairs.map { "\($0.name)=\($0.value); Path=/" })
        }
        router.get("/cookies/set/:name/:value") { _, context in
            let name = try context.parameters.require("name")
            let value = try context.parameters.require("value")
            return Self.redirectToCookies(setting: ["\(name)=\(value); Path=/"])
        }
        router.get("/cookies/delete") { request, _ in
            let names = FormURLEncoding.parse(request.uri.query ?? "").map(\.name)
            return Self.redirectToCookies(
                setting: names.map { "\($0)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/" }
            )
        }
    }

    private static func redirectToCookies(setting cookies: [String]) -> Response {
        var response = Response.redirecting(to: "/cookies")
        response.headers[values: .setCookie] = cookies
        return response
    }
}
