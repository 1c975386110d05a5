//! Our own rules, in gitleaks' shape, for what its rule set leaves to its entropy-based
//! generic rule or does not cover: credentials in URLs and on command lines (each tool's
//! own flag, then tool-agnostic shapes), `KEY VALUE` config lines, quoted keys, prefixed
//! `*_PASSWORD=` assignments and Basic credentials ([`super::formats`] has the token
//! formats it does not know).
//! Each rule was added for a miss of a corpus; the held-out corpora in
//! `tests/fixtures/secrets/` say which (docs/security.md has the history).

/// Our additions, in gitleaks' shape: (id, regex, secret group, keywords).
pub(super) const OWN: &[(&str, &str, usize, &[&str])] = &[
    (
        // gitleaks allow-lists AWS's documented example keys; we redact them anyway.
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b",
        0,
        &[
            "a3t", "akia", "asia", "abia", "acca", "agpa", "aida", "aroa",
        ],
    ),
    (
        "aws-secret-key",
        r#"(?i)aws_?secret_?(?:access_?)?key["']?[ \t]*[=:][ \t]*["']?([a-z0-9/+=]{40})"#,
        1,
        &["aws"],
    ),
    (
        "url-credentials",
        // The password may hold `@` (unencoded): it runs to the last `@` before the host.
        r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'\x22]{0,128}:([^\s/'\x22]{1,256})@[a-z0-9.\[-]",
        1,
        &["://"],
    ),
    (
        // Go's MySQL DSN: `user:password@tcp(host:port)/db` (or `@unix(…)`), no scheme.
        "url-credentials",
        r"(?i)\b[a-z0-9_.-]{1,64}:([^\s:/@'\x22]{1,256})@(?:tcp6?|unix)\(",
        1,
        &["@tcp", "@unix"],
    ),
    (
        "bearer-token",
        r"(?i)\bbearer[ \t]+([a-z0-9._~+/-]{16,}=*)",
        1,
        &["bearer"],
    ),
    (
        "password",
        r#"(?i)\b[a-z0-9_.-]{0,40}(?:password|passwd|pwd|passphrase|[_.-]pass|\bpass|(?:remote|root|admin|db|auth|master|require|user|login|smtp|imap|pop|ftp|mail|redis|bind|ldap|sasl|proxy|app|default|service|svc|sys|super)pass|[_.-]pw|\bpsk|authtok)\b["']?[ \t]*(?:=|:|:=)[ \t]*("[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;\])}]{6,})"#,
        1,
        &["pass", "pwd", "_pw", "-pw", ".pw", "psk", "authtok"],
    ),
    (
        // A quoted key: PHP's `'password' => '…'`, `$cfg['db_password'] = '…'`,
        // `define('DB_PASSWORD', '…')`.
        "password",
        r#"(?i)["'][a-z0-9_.-]{0,40}(?:password|passwd|passphrase|pwd|pass|secret|token|api_?key)["'][ \t]*\]?[ \t]*(?:=>|=|:|,)[ \t]*("[^"\n]{4,}"|'[^'\n]{4,}')"#,
        1,
        &["pass", "pwd", "secret", "token", "key"],
    ),
    (
        // A config line `KEY VALUE` (ldap's `bind_pw X`, `smtp_pass X`, BIND's
        // `secret "X";`), perhaps after its file's name (`nslcd.conf: bindpw X`): one key
        // ending in a secret word, one value of six or more characters, nothing else.
        "password",
        r##"(?im)^[ \t]*(?:[a-z0-9_./-]{1,40}:[ \t]+)?[a-z0-9_.-]{0,40}(?:password|passwd|passphrase|pwd|pw|pass|secret|token|auth|authtok|psk)[ \t]+("[^"\n]{6,128}"|'[^'\n]{6,128}'|[^\s=:'"#;][^\s;]{5,127});?[ \t]*$"##,
        1,
        &["pass", "pwd", "pw", "secret", "token", "auth", "psk"],
    ),
    (
        // SQL: `… IDENTIFIED BY 'pw'` (MySQL, Oracle), `… IDENTIFIED WITH plugin BY 'pw'`.
        "password",
        r#"(?i)\bidentified\s+(?:with\s+\S+\s+)?by\s+(?:password\s+)?(?:'([^'\n]{3,128})'|"([^"\n]{3,128})"|([^\s;'"]{3,128}))"#,
        0,
        &["identified"],
    ),
    (
        // Oracle's `user/password@db` after conn, sqlplus, exp/imp, expdp/impdp.
        "cli-password",
        r#"(?im)(?:^|\s)(?:conn(?:ect)?|sqlplus(?:\s+-[sl])?|expdp|impdp|exp|imp)\s+[a-z0-9_$#]{1,30}/([^\s/@'"]{3,64})@"#,
        1,
        &["conn", "sqlplus", "exp", "imp"],
    ),
    (
        // An SNMP community in snmpd.conf (`rocommunity X 10.0.0.0/24`).
        "cli-password",
        r#"(?im)^[ \t]*r[ow]community6?[ \t]+([^\s#]{4,128})"#,
        1,
        &["community"],
    ),
    (
        // `user@domain:password` (postfix sasl_passwd, credential lists); not a file
        // after scp's `host:` (`ops@db2.acme.io:dump.sql`) nor a path.
        "cli-password",
        r#"(?i)\b[a-z0-9_.+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+:([^\s:/]{6,128})(?:\s|$)"#,
        1,
        &["@"],
    ),
    (
        // A PgBouncer `userlist.txt` line: `"user" "password"`.
        "password",
        r#"(?m)^[ \t]*"[^"\s]{1,64}"[ \t]+"([^"\n]{6,128})"[ \t]*$"#,
        1,
        &["\""],
    ),
    (
        // A `.pgpass` line: `host:port:database:user:password`.
        "password",
        r##"(?m)^[^\s:#]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(\S{3,128})$"##,
        1,
        &[":"],
    ),
    (
        "api-key",
        r#"(?i)\b[a-z0-9_.-]{0,40}(?:api[_-]?key|apikey|secret[_-]?key(?:[_-]?base)?|(?:master|encryption|signing|auth)[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|secret|token)\b["']?[ \t]*(?:=|:|:=)[ \t]*("[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;\])}]{6,})"#,
        1,
        &["key", "secret", "token"],
    ),
    (
        // HTTP Basic credentials: base64 of `user:password` after `Authorization … Basic`.
        "basic-auth",
        r#"(?i)authorization["']?[ \t]*[:=]?[ \t]*["']?basic[ \t]+([a-z0-9+/]{8,}={0,2})"#,
        1,
        &["basic"],
    ),
    (
        // openssl's legacy `-k PASSWORD` (enc).
        "cli-password",
        r#"(?i)\bopenssl\b[^\n]{0,200}?\s-k\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["openssl"],
    ),
    (
        "azure-account-key",
        r"(?i)\b(?:AccountKey|SharedAccessKey)=([a-z0-9+/]{20,}={0,2})",
        1,
        &["accountkey", "sharedaccesskey"],
    ),
    (
        "azure-sas-signature",
        r"(?i)[?&]sig=([a-z0-9%+/]{20,}(?:%3d|=){0,2})",
        1,
        &["sig="],
    ),
    (
        // PowerShell's `ConvertTo-SecureString 'X' -AsPlainText`: a password in the clear.
        "powershell-password",
        r#"(?i)\bconvertto-securestring\s+(?:-(?:string|asplaintext|force)\s+)*['"]([^'"\n]{4,128})['"]"#,
        1,
        &["convertto-securestring"],
    ),
    (
        // macOS `dscl . -passwd /Users/NAME [OLD] NEW`.
        "cli-password",
        r#"(?i)\bdscl\s+\S+\s+-passwd\s+\S+\s+(?:\S+\s+)?['"]?([^\s'"]{3,128})"#,
        1,
        &["dscl"],
    ),
    (
        // Browser tests typing into a password field: `cy.get('input[name=pass]')
        // .type('X')`, `find_element(By.ID, 'pwd').send_keys('X')`.
        "typed-password",
        r#"(?i)(?:pass|pwd)[^'"\n]{0,30}['"]\s*\)\s*\.\s*(?:type|send_keys|sendkeys|setvalue|fill)\(\s*['"]([^'"\n]{4,128})['"]"#,
        1,
        &["pass", "pwd"],
    ),
    (
        // A key written as its bytes (`network_key: [217, 102, …]`, Zigbee and Z-Wave):
        // sixteen or more numbers.
        "key-bytes",
        r#"(?i)\b[a-z_]*key["']?\s*[:=]\s*\[\s*((?:(?:0x)?[0-9a-f]{1,3}\s*,\s*){15,63}(?:0x)?[0-9a-f]{1,3})\s*\]"#,
        1,
        &["key"],
    ),
    (
        // Oracle's thin JDBC URL: `jdbc:oracle:thin:user/password@//host:1521/SVC`.
        "url-credentials",
        r#"(?i)\bjdbc:oracle:thin:[^/\s:@'"]{1,64}/([^@\s'"]{1,128})@"#,
        1,
        &["jdbc:oracle"],
    ),
    (
        // An NTP or chrony key line: `1 SHA1 <hex>`, `10 SHA256 HEX:<hex>`.
        "ntp-key",
        r#"(?im)(?:^|:[ \t]+)[ \t]*\d{1,5}[ \t]+(?:md5|sha1|sha256|sha384|sha512|aes128cmac|m)[ \t]+(?:hex:|ascii:)?([0-9a-z]{8,128})[ \t]*$"#,
        1,
        &["md5", "sha", "aes128cmac"],
    ),
    (
        // net-snmp's `createUser NAME SHA AUTHPASS [AES PRIVPASS]`: the authentication
        // passphrase…
        "snmp-passphrase",
        r#"(?i)\bcreateuser\s+\S+\s+(?:md5|sha(?:-?\d+)?)\s+['"]?([^\s'"]{6,128})"#,
        1,
        &["createuser"],
    ),
    (
        // …and the privacy passphrase.
        "snmp-passphrase",
        r#"(?i)\bcreateuser\s+\S+\s+(?:md5|sha(?:-?\d+)?)\s+\S+\s+(?:des|aes(?:-?\d+)?)\s+['"]?([^\s'"]{6,128})"#,
        1,
        &["createuser"],
    ),
    (
        // A BitLocker recovery key: eight groups of six digits (each a multiple of 11).
        "recovery-key",
        r"\b\d{6}(?:-\d{6}){7}\b",
        0,
        &["-0", "-1", "-2", "-3", "-4", "-5", "-6", "-7", "-8", "-9"],
    ),
    (
        // A Kubernetes bootstrap token (kubeadm, k3s, Talos): `[a-z0-9]{6}.[a-z0-9]{16}`,
        // judged like a password's value (it must hold a digit: `abcdef.ghijklmnopqrstuv`
        // is a name).
        "bootstrap-token",
        r"\b([a-z0-9]{6}\.[a-z0-9]{16})\b",
        1,
        &["."],
    ),
    (
        // A password after its scheme in a passwd-file or an LDAP attribute
        // (`ana:{PLAIN}X`, `userPassword: {CLEARTEXT}X`): the scheme says it is plain.
        "password",
        r"\{(?:PLAIN|CLEAR|CLEARTEXT|PLAIN-TRUNC)\}([^\s:]{3,128})",
        1,
        &["{plain", "{clear"],
    ),
    (
        // A hex or `sdk-` key passed by position to a client's constructor
        // (`algoliasearch('APPID', '4f3d…')`, `Twilio::REST::Client.new(SID, '17ee…')`,
        // `LDClient("sdk-…")`): the callee's name ends in client, connect, auth, login,
        // init or search.
        "client-key",
        r#"(?i)\b[a-z0-9_.:]*(?:client|connect|auth|login|init|search)(?:\.new)?\s*\((?:[^()\n]{0,200}?,\s*)?['"]((?:sdk-|mob-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32,64})['"]"#,
        1,
        &["client", "connect", "auth", "login", "init", "search"],
    ),
    (
        "gcp-private-key-id",
        r#"(?i)"?private_key_id"?[ \t]*[:=][ \t]*"?([a-f0-9]{40})"#,
        1,
        &["private_key_id"],
    ),
    // Credentials on command lines (the red team's gap): each tool's own flag.
    (
        "cli-password",
        r#"(?i)\b(?:curl|wget|https?)\b[^\n]{0,200}?\s(?:-u|--user|--http-user|-a|--auth)[ =]?['"]?[^\s:'"]{1,64}:([^\s'"]{3,128})"#,
        1,
        &["curl", "wget", "http"],
    ),
    (
        "cli-password",
        r#"(?i)\bsshpass\b[^\n]{0,40}?\s-p\s*['"]?([^\s'"]{3,128})"#,
        1,
        &["sshpass"],
    ),
    (
        "cli-password",
        r#"(?i)\bmysql(?:dump|admin|import|sh|check)?\b[^\n]{0,200}?\s-p([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["mysql"],
    ),
    (
        "cli-password",
        r#"(?i)(?:^|\s)--?(?:password|passwd|pass|http-password|ftp-password)[ =]['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["-pass"],
    ),
    (
        "cli-password",
        r#"(?i)\s-(?:pass|passin|passout|k)\s+pass:([^\s'"]{3,128})"#,
        1,
        &["pass:"],
    ),
    (
        "cli-password",
        r#"(?i)\bdocker\s+login\b[^\n]{0,200}?\s-p\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["docker"],
    ),
    (
        "cli-password",
        r#"(?i)\bredis-cli\b[^\n]{0,200}?\s-a\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["redis-cli"],
    ),
    (
        "cli-password",
        r#"(?i)\b(?:smbclient|rpcclient|smbmap|net\s+use)\b[^\n]{0,200}?(?:-U\s*|/user:)['"]?[^\s%'"]{1,64}%([^\s'"]{3,128})"#,
        1,
        &["smbclient", "rpcclient", "smbmap", "net use"],
    ),
    (
        "cli-password",
        r#"(?i)\b(?:ldap[a-z]{0,10}|kadmin(?:\.local)?)\b[^\n]{0,300}?\s-w\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["ldap", "kadmin"],
    ),
    (
        "cli-password",
        r#"(?i)\baz\s+login\b[^\n]{0,300}?\s-p\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["az login"],
    ),
    (
        "cli-password",
        r#"(?i)\bhtpasswd\s+-[a-z]*b[a-z]*\s+(?:-[a-z]+\s+)*\S+\s+\S+\s+['"]?([^\s'"]{3,128})"#,
        1,
        &["htpasswd"],
    ),
    (
        "cli-password",
        r#"(?i)\blftp\b[^\n]{0,200}?\s-u\s+['"]?[^\s,'"]{1,64},([^\s'"]{3,128})"#,
        1,
        &["lftp"],
    ),
    (
        "cli-password",
        r#"(?i)\b(?:sqlcmd|bcp|osql|isql)\b[^\n]{0,200}?\s-P\s*['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["sqlcmd", "bcp", "osql", "isql"],
    ),
    (
        // Kubernetes / compose env lists: `- name: DB_PASSWORD` then `value: …`.
        "env-secret-value",
        r#"(?i)(?:name|key):[ \t]*["']?[a-z0-9_]*(?:password|passwd|secret|token|api_?key|pass)["']?[ \t]*\r?\n[ \t]*value:[ \t]*["']?([^\s"']{4,256})"#,
        1,
        &["name:", "key:"],
    ),
    (
        "cli-password",
        r#"(?i)\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+['"]?([^\s'"]{3,128})"#,
        1,
        &["rabbitmqctl"],
    ),
    (
        // `echo 'pw' | docker login … --password-stdin`, `… | sudo -S …`,
        // `… | passwd --stdin`, `… | chpasswd`: a literal piped to what reads a password.
        "cli-password",
        r#"(?i)\b(?:echo|printf)\s+(?:-[ne]+\s+)?['"]?([^\s'"|]{3,128})['"]?\s*\|[^\n]{0,200}?(?:--password-stdin|--passwd-on-stdin|\s--stdin\b|\bsudo\s+(?:-[a-z]+\s+)*-[a-z]*S\b|\bchpasswd\b)"#,
        1,
        &["stdin", "sudo", "chpasswd"],
    ),
    (
        // Windows' `net user NAME PASSWORD [/add]`.
        "cli-password",
        r#"(?i)\bnet\s+user\s+\S+\s+['"]?([^\s/'"*][^\s'"]{2,127})"#,
        1,
        &["net user"],
    ),
    (
        // Archivers' `-pSECRET` / `-hpSECRET` (password attached to the flag).
        "cli-password",
        r#"(?i)\b(?:rar|unrar|7z|7za|7zr)\b[^\n]{0,100}?\s-h?p([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["rar", "7z"],
    ),
    (
        // A literal handed to a password-hashing call: `Hash::make('X')`,
        // `password_hash('X', …)`, `bcrypt.hashpw(b'X', …)`, `openssl passwd -6 X`.
        "password",
        r#"(?i)\b(?:hash::make|password_hash|hashpw|make_password|generate_password_hash|bcrypt\.hash(?:sync)?|argon2\.hash)\s*\(\s*b?["']([^"'\n]{4,128})["']"#,
        1,
        &["hash", "make_password"],
    ),
    (
        "cli-password",
        r#"(?i)\b(?:openssl\s+passwd|mkpasswd)\s+(?:-[a-z0-9-]+\s+(?:sha-?\d+\s+)?)*['"]?([^\s'"$-][^\s'"]{2,127})"#,
        1,
        &["passwd"],
    ),
    (
        // Redis: `ACL SETUSER name on >password …`, `AUTH [user] password`.
        "cli-password",
        r#"(?i)\bacl\s+setuser\b[^\n]{0,100}?\s>(\S{3,128})"#,
        1,
        &["setuser"],
    ),
    (
        "cli-password",
        r#"(?m)^[ \t]*AUTH[ \t]+(?:[A-Za-z0-9_-]{1,64}[ \t]+)?(\S{6,128})[ \t]*$"#,
        1,
        &["auth"],
    ),
    (
        // `gh secret set NAME --body X`.
        "cli-password",
        r#"(?i)\bgh\s+secret\s+set\b[^\n]{0,100}?\s(?:--body|-b)[ =]['"]?([^\s'"$-][^\s'"]{2,127})"#,
        1,
        &["gh secret"],
    ),
    (
        // expect scripts: `expect "assword:"; send "X\r"`.
        "cli-password",
        r#"(?i)assword[^\n]{0,40}?\bsend\s+(?:--\s+)?"([^"\\\n]{3,128})"#,
        1,
        &["assword"],
    ),
    (
        // A call whose name says password: `changeUserPassword("app", "X")`,
        // `set_password('X')` — its last string literal.
        "password",
        r#"(?i)\b[a-z_.]*(?:password|passwd|passphrase)[a-z_]*\s*\(\s*(?:["'][^"'\n]*["']\s*,\s*)*["']([^"'\n]{4,128})["']\s*\)"#,
        1,
        &["pass"],
    ),
    (
        // XML whose element or key attribute names a password:
        // `<property name="hibernate.connection.password">X</property>`.
        "xml-secret",
        r#"(?i)<[a-z][a-z0-9:_-]*\s+(?:name|key|id)\s*=\s*"[^"]{0,80}(?:password|passwd|pwd|secret|token)"[^>]{0,100}>([^<\s]{4,256})</"#,
        1,
        &["password", "passwd", "pwd", "secret", "token"],
    ),
    (
        // DeepL's key: a UUID and `:fx` (the free API's) anywhere.
        "api-key",
        r"(?i)\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:fx)\b",
        1,
        &[":fx"],
    ),
    (
        // OpenWeather's key is called an app id (`OPENWEATHER_APPID=…`, `appid=…` in its
        // URLs): 32 hex digits.
        "api-key",
        r"(?i)\b(?:openweather[a-z_]*|appid)[ \t]*[=:][ \t]*[\x22']?([0-9a-f]{32})\b",
        1,
        &["openweather", "appid"],
    ),
    (
        // A Plex claim token (`claim-` and 20 random characters), good for four minutes.
        "api-key",
        r"\b(claim-[A-Za-z0-9_-]{20})\b",
        1,
        &["claim-"],
    ),
    (
        // LabKey's API key: `apikey|` and 32 hex digits.
        "api-key",
        r"\b(apikey\|[0-9a-f]{32})\b",
        1,
        &["apikey|"],
    ),
    (
        // A secret setting given through a decoding call: `c.JupyterHub.cookie_secret =
        // bytes.fromhex('…')`, `b64decode('…')`, `Buffer.from('…')`.
        "api-key",
        r#"(?i)\b[a-z0-9_.]*(?:secret|token|api_?key|password)[a-z0-9_]*\s*=\s*(?:bytes\.fromhex|base64\.b64decode|b64decode|unhexlify|Buffer\.from)\(\s*b?["']([^"'\n]{16,256})["']"#,
        1,
        &["fromhex", "b64decode", "unhexlify", "buffer.from"],
    ),
    (
        // A property list's key and its value (launchd, Info.plist):
        // `<key>DB_PASSWORD</key><string>X</string>`.
        "xml-secret",
        r#"(?i)<key>[^<]{0,80}(?:password|passwd|pwd|secret|token|api_?key)[^<]{0,40}</key>\s*<string>([^<\s]{4,256})</string>"#,
        1,
        &["<key>"],
    ),
    (
        // `user:pass@host` without a scheme (`impacket-psexec dom/admin:pw@10.0.0.5`,
        // `mysqlsh root:pw@localhost`); a value of digits and dots is a version.
        "cli-password",
        r#"(?i)(?:^|[\s/'"=])[a-z0-9_.\\-]{1,64}:([^\s@/:'"]*[^\s@/:'"\d.][^\s@/:'"]*)@(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost)\b"#,
        1,
        &["@"],
    ),
    // Tool-agnostic command-line shapes, for tools no rule names (heldout-3's misses:
    // each tool spells its password flag its own way).
    (
        // A flag whose name ends in a secret word: `-storepass X`, `--db-password=X`,
        // `--client-secret X`. Not `--password-file`, `--no-password`, `$VAR` or `-…`.
        "cli-password",
        // The same secret words as keys use (`passphrase`, `-pw`, `--user_pass`).
        r#"(?i)(?:^|[\s'"])--?(?:[a-z][a-z0-9_-]{0,30})?(?:pass|password|passwd|passphrase|pwd|pw|secret|token|api-?key)[ =]['"]?([^\s'"<|>&;$-][^\s'"]{2,127})"#,
        1,
        &["pass", "pwd", "-pw", "_pw", "secret", "token", "key"],
    ),
    (
        // `-u USER -p PASS` / `-U USER -P PASS` in any tool; a value of digits, colons
        // and dots is a port or a uid, not a password.
        "cli-password",
        r#"(?:^|\s)(?:-u|-U|--user|--username|--login)[ =]?['"]?[^\s'"$-][^\s'"]{0,63}['"]?\s+(?:-[pP][ =]?|--pass[ =])['"]?((?:[^\s'"$-][^\s'"]*)?[^\s'"\d:./-][^\s'"]*)"#,
        1,
        &["-p", "--pass"],
    ),
    (
        "cli-password",
        r#"(?:^|\s)(?:-[pP][ =]?|--pass[ =])['"]?((?:[^\s'"$-][^\s'"]*)?[^\s'"\d:./-][^\s'"]*)['"]?\s+(?:-u|-U|--user|--username|--login)[ =]?['"]?[^\s'"$-]"#,
        1,
        &["-p", "--pass"],
    ),
    (
        // Windows-style flags: `/p:X`, `/pass:X`, `/password:X` (RDP, cmdkey); not an
        // MSBuild property (`/p:Configuration=Release`).
        "cli-password",
        r#"(?im)(?:^|\s)/(?:p|pw|pwd|pass|passwd|password|passphrase|[a-z]{1,20}pass(?:word)?)[:=]['"]?([^\s'"/$%<=-][^\s'"=]{2,127})['"]?(?:\s|$)"#,
        1,
        &["/p"],
    ),
    (
        // `--proxy-user user:pass`, `--basic-auth user:pass` in any tool.
        "cli-password",
        r#"(?i)\s(?:--proxy-user|--user|-u|-U|--auth|--basic-auth|--credentials|--creds)[ =]['"]?[^\s:'"@/$-][^\s:'"@/]{0,63}:([^\s'"@]*[^\s'"@\d:.][^\s'"@]*)"#,
        1,
        &["user", "-u", "auth", "cred"],
    ),
    (
        // `SSHPASS=…`, `PGPASS=…`, `REDISCLI_AUTH`-style names in upper case.
        "env-password",
        r#"\b[A-Z][A-Z0-9_]*(?:PASS|PASSWD|PASSWORD|SECRET|TOKEN|APIKEY|_AUTH|_PAT)=['"]?([^\s'"$][^\s'"]{3,127})"#,
        1,
        &["pass", "secret", "token", "apikey", "_auth", "_pat="],
    ),
    (
        // An ftp script's `user NAME PASS` line.
        "cli-password",
        r#"(?ims)\bftp\b.{0,400}?^[ \t]*user[ \t]+\S+[ \t]+(\S{4,128})[ \t]*$"#,
        1,
        &["ftp"],
    ),
    (
        "netrc-password",
        r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S{3,128})",
        1,
        &["machine"],
    ),
    (
        "xml-secret",
        // …or whose name ends with one (`<AdministratorPassword>`), the value perhaps in
        // a `<Value>` (Windows' Unattend.xml).
        r"(?i)<[a-z0-9_:-]{0,40}(?:password|passwd|pass|pwd|secret|api[_-]?key|token)(?:\s[^>]{0,100})?>\s*(?:<value>\s*)?([^<\s]{4,256})</",
        1,
        &["pass", "pwd", "secret", "api", "token"],
    ),
    (
        // macOS `security`: a keychain's or a .p12's password after `-p`/`-P`.
        "cli-password",
        r#"\bsecurity\s+(?:import|export|unlock-keychain|create-keychain|set-keychain-password)\b[^\n]{0,200}?\s-[pP]\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["security"],
    ),
    (
        // RabbitMQ's `rabbitmqctl add_user NAME PASS` and `change_password NAME PASS`.
        "cli-password",
        r#"(?i)\brabbitmqctl\b[^\n]{0,100}?\s(?:add_user|change_password)\s+['"]?[^\s'"]{1,64}['"]?\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["rabbitmqctl"],
    ),
];

#[cfg(test)]
mod tests {
    use crate::secrets::tests::{gone, kept};

    #[test]
    fn rabbitmq_users_password_even_of_repeated_words() {
        gone(&[
            (
                "rabbitmqctl add_user shop bucket_magnet_garden_magnet_ladder",
                "bucket_magnet_garden_magnet_ladder",
            ),
            ("rabbitmqctl change_password shop Xk29dj3kfA", "Xk29dj3kfA"),
        ]);
        kept(&[
            "rabbitmqctl add_user shop shop_user",
            "rabbitmqctl list_users",
        ]);
    }
}
