import NIOCore
import X509

extension ServerIdentityPolicy {
    /// The identity check for `host` as it appears in a URL: a literal IP address is matched against
    /// the certificate's address names, anything else against its DNS names.
    package init(host: String) {
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        self.init(serverHostname: isAddress ? nil : host, serverIP: isAddress ? host : nil)
    }
}
