import Foundation
import Hummingbird

extension HTTPBinRoutes {
    /// `/basic-auth/:user/:passwd`, `/hidden-basic-auth/:user/:passwd` and `/bearer`.
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
