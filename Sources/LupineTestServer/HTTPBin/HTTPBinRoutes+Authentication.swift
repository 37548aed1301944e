import Foundation
import Hummingbird

extension HTTPBinRoutes {
    /// `/basic-auth/:user/:passwd`, `/hidden-basic-auth/:user/:passwd`, `/bearer`, and ours,
    /// `/bearer/:token`: 200 when `Authorization` is `Bearer <token>`, else 401 with
    /// `WWW-Authenticate: Bearer`; each request counted under the key `bearer-<token>` (see
    /// ``registerRetry(on:)``).
    func registerAuthentication(on router: Router<Context>) {
        router.get("/basic-auth/:user/:passwd") { request, context in
            let user = try context.parameters.require("user")
            guard Self.hasBasicCredentials(request, user: user, password: try context.parameters.require("passwd")) else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: #"Basic realm="Fake Realm""#])
            }
            return try Response.json(.object(["authenticated": .bool(true), "user": .string(user)]))
        }
        router.get("/hidden-basic-auth/:user/:passwd") { request, context in
            let user = try context.parameters.require("user")
            guard Self.hasBasicCredentials(request, user: user, password: try context.parameters.require("passwd")) else {
                throw HTTPError(.notFound)
            }
            return try Response.json(.object(["authenticated": .bool(true), "user": .string(user)]))
        }
        router.get("/bearer") { request, _ in
            guard let authorization = request.headers[.authorization],
                authorization.lowercased().hasPrefix("bearer ")
            else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
            }
            let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            return try Response.json(.object(["authenticated": .bool(true), "token": .string(token)]))
        }
        on("/bearer/:token", methods: Self.anyMethod, router: router) { request, context in
            let token = try Self.attemptKey(context, parameter: "token")
            let attempt = attempts.increment("bearer-\(token)")
            guard Self.hasBearerToken(request, token) else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
            }
            return try Response.json(.object(["authenticated": .bool(true), "attempt": .integer(attempt)]))
        }
    }

    /// Whether `request` carries `Authorization: Bearer <token>` (the scheme in any case).
    private static func hasBearerToken(_ request: Request, _ token: String) -> Bool {
        guard let authorization = request.headers[.authorization] else { return false }
        let scheme = "bearer "
        return authorization.prefix(scheme.count).lowercased() == scheme && authorization.dropFirst(scheme.count) == token
    }

    private static func hasBasicCredentials(_ request: Request, user: String, password: String) -> Bool {
        guard let authorization = request.headers[.authorization],
            authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst("basic ".count))),
            let credentials = String(data: decoded, encoding: .utf8)
        else {
            return false
        }
        return credentials == "\(user):\(password)"
    }
}
