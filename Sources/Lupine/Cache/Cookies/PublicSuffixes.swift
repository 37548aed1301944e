/// A short built-in part of the Public Suffix List (https://publicsuffix.org): the domains under
/// which unrelated parties register names, and for which a `Domain` attribute is therefore refused
/// (RFC 6265 §5.3 step 5). Every single-label domain (`com`, `localhost`, any top-level domain)
/// counts as one as well, as the list's implicit `*` rule says.
enum PublicSuffixes {
    /// Whether `domain` (canonical) is a public suffix.
    static func contains(_ domain: String) -> Bool {
        !domain.contains(".") || Self.multiLabel.contains(domain)
    }

    /// The listed suffixes of more than one label: registries' second levels, then the best-known
    /// hosting services whose customers share a parent domain.
    private static let multiLabel: Set<String> = [
        // United Kingdom, Australia, New Zealand, Japan, Korea, China, Taiwan, Hong Kong, India...
        "co.uk", "org.uk", "ac.uk", "gov.uk", "ltd.uk", "plc.uk", "me.uk", "net.uk", "sch.uk", "nhs.uk", "police.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz", "school.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ed.jp", "gr.jp", "lg.jp",
        "co.kr", "or.kr", "ne.kr", "ac.kr", "go.kr", "re.kr",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
        "com.tw", "net.tw", "org.tw", "edu.tw", "gov.tw",
        "com.hk", "net.hk", "org.hk", "edu.hk", "gov.hk",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "edu.in", "gov.in",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.mx", "net.mx", "org.mx", "gob.mx", "edu.mx",
        "com.ar", "net.ar", "org.ar", "gob.ar",
        "co.za", "net.za", "org.za", "gov.za", "ac.za",
        "com.sg", "net.sg", "org.sg", "edu.sg", "gov.sg",
        "com.tr", "net.tr", "org.tr", "gov.tr", "edu.tr",
        "co.il", "org.il", "ac.il", "gov.il",
        "com.ru", "net.ru", "org.ru", "com.ua", "co.id", "or.id", "ac.id", "go.id",
        "com.my", "com.ph", "com.vn", "co.th", "in.th", "com.pk", "com.eg", "com.sa", "com.co", "com.pe",
        // Hosting services (the list's private section).
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com",
        "netlify.app", "vercel.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com",
        "cloudfront.net", "azurewebsites.net", "azurestaticapps.net", "s3.amazonaws.com",
        "elasticbeanstalk.com", "fly.dev", "onrender.com", "glitch.me", "ngrok.io", "ngrok-free.app",
        "readthedocs.io", "bitbucket.io", "surge.sh", "now.sh", "repl.co", "dyndns.org", "no-ip.org",
    ]
}
