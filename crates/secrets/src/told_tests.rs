//! Tests of [`super`] through the whole scan: digits a sentence gives as a code whatever
//! it opens, and a passphrase given with a Wi-Fi network — and the everyday codes, sizes
//! and network names that must stay.

use crate::tests::{gone, kept};

#[test]
fn digits_given_as_a_code_whatever_it_opens() {
    gone(&[
        ("the POS manager override is 8581", "8581"),
        (
            "Learned: the thermostat's installer menu asks for 5924",
            "5924",
        ),
        ("the thermostat's installer code is 5924", "5924"),
        ("the server cage code is 28831 until March", "28831"),
        ("the building's after-hours code is 44120.", "44120"),
        ("the phone unlock code is 2231", "2231"),
        ("the new code is 7788, don't share it", "7788"),
        ("the kiosk prompts for 660912 on boot", "660912"),
    ]);
}

#[test]
fn public_codes_sizes_and_counts_stay() {
    kept(&[
        "the zip code is 94107",
        "the error code is 10054.",
        "the response code was 4290.",
        "the project code is 4411",
        "the booking code is 4417",
        "the HS code is 8471",
        "the country code: 0044",
        "the code was 3000 lines before the refactor",
        "the code review is 4412 lines",
        "the code is in src/main.rs",
        "the exit code is 137",
        "the form asks for 2048 MB",
        "the wizard asks for 3 values",
        "the manager override is in the admin panel",
        "the manager override is 15 minutes",
        "the error code 5003 is documented",
    ]);
}

#[test]
fn a_passphrase_given_with_a_wifi_network() {
    gone(&[
        (
            "the warehouse Wi-Fi is Dock-5G, ladder-engine-jacket",
            "ladder-engine-jacket",
        ),
        (
            "wifi for the pop-up store: velvet-orange-hammer",
            "velvet-orange-hammer",
        ),
    ]);
    kept(&[
        "the Wi-Fi SSID is blue-harbor-lamp",
        "the Wi-Fi is Dock-5G on channel 36",
        "our wifi is on the mesh-router-config branch",
        "the office Wi-Fi is AcmeGuest2024",
        "the Wi-Fi network is called north-wing-guest",
    ]);
}

#[test]
fn a_hex_key_or_uuid_after_a_word_naming_a_token() {
    let hex = "40cfc4aca3d6b5ff283e61a03ba71f59141414a514a4af0c";
    let uuid = "f866069b-8072-8393-4609-934229b29d4c";
    gone(&[
        (&format!("strapi: API token (full access) {hex}"), hex),
        (&format!("statuspage: the API key is {uuid}"), uuid),
        ("the old iPad opens with 121869", "121869"),
    ]);
    kept(&[
        &format!("the token's sha256 is {hex}"),
        &format!("API token id {hex} was revoked"),
        &format!("the partition key is {uuid}"),
        "the season opens with 2026 fixtures",
        "the report opens with 1200 rows",
    ]);
}

#[test]
fn where_code_reads_a_key_from_is_no_key() {
    kept(&["const client = new Typesense.Client({ nodes, apiKey: process.env.TYPESENSE_KEY });"]);
}

#[test]
fn a_typed_key_and_a_grouped_hex_password_after_the_word() {
    let key = format!("standard_{}", "8896ea1f3ec4052b597cc4bdf4e47a60".repeat(4));
    let grouped = "d0e015ad-6ff5-66f5-b555-070a4171d274-6526-13cc";
    gone(&[
        (&format!("appwrite: server API key {key}"), key.as_str()),
        (&format!("bunny: storage zone password {grouped}"), grouped),
    ]);
    kept(&[
        "the API key prefix is standard_ for server keys",
        "bunny: the storage zone id is d0e015ad-6ff5-66f5-b555-070a4171d274",
    ]);
}

#[test]
fn a_typed_uuid_after_a_secret_word() {
    let secret = "wbhsec_028df273-b4d7-b2b8-7f84-4cefec411b22";
    gone(&[(
        &format!("persona: the inquiry webhook secret {secret}"),
        secret,
    )]);
    kept(&["persona: the inquiry template is itmpl_Zx9kQ2mP4vL8nR6t"]);
}

#[test]
fn a_hex_token_after_its_type_and_owner() {
    let hex = "30a8a6a9d18f976deaf38037031a39d0";
    gone(&[(&format!("dagster: agent token agent:acme:{hex}"), hex)]);
    kept(&[&format!(
        "dagster: the agent's image digest is sha256:{hex}{hex}"
    )]);
}

#[test]
fn an_assignment_in_code_is_no_command_line() {
    kept(&[
        "klarna = Klarna(username='K123456_abcdef', password=os.environ['KLARNA_PASSWORD'])",
        "ebay = Connection(appid='Acme-Shop-PRD-4f1a2b3c', config_file='ebay.yaml')",
    ]);
    gone(&[
        (
            "klarna = Klarna(username='K123456_abcdef', password='Xk29dj3kfAq!')",
            "Xk29dj3kfAq!",
        ),
        // Random pieces joined by `-` are no name of words.
        (
            "ugh, pasted Xk9qZm2LpR-8vTw4nQe in chat",
            "Xk9qZm2LpR-8vTw4nQe",
        ),
        (
            "conn = Connection(appid='Xk9qZm2LpR-8vTw4nQe')",
            "Xk9qZm2LpR-8vTw4nQe",
        ),
    ]);
    kept(&[
        "see Acme-Shop-PRD-4f1a2b3c there",
        "the appid is Acme-Shop-PRD-4f1a2b3c",
    ]);
}

#[test]
fn a_password_for_something_an_id_names() {
    gone(&[
        (
            "veeam: the encryption password for the backup job is velvet-ladder-island-magnet90",
            "velvet-ladder-island-magnet90",
        ),
        (
            "personio: client secret papi-36a38cde-e67c-e825-006c-3df90ed604fb",
            "papi-36a38cde-e67c-e825-006c-3df90ed604fb",
        ),
    ]);
    kept(&[
        "the password reset job is nightly-reset-runner-v2",
        "the password for the backup job is in the vault",
    ]);
}

#[test]
fn heldout_47_shapes_and_public_sdk_keys() {
    gone(&[
        (
            "security import cert.p12 -k build.keychain -P dragon.garden.carpet -T /usr/bin/codesign",
            "dragon.garden.carpet",
        ),
        (
            "chromatic: project token chpt_173e91608e5366f",
            "chpt_173e91608e5366f",
        ),
        (
            "emulator: adb shell settings put secure lock_screen_pin 825524",
            "825524",
        ),
        ("note: au045f109cgnsf4", "au045f109cgnsf4"),
    ]);
    kept(&[
        "REVENUECAT_APPLE_API_KEY=appl_Zx9kQ2mP4vL8nR6tY3wBcD5fG7h",
        "BRANCH_KEY=key_live_kaFuWw8WvY7yn1d9yYiP8gokwqjV0Swt",
        "Purchases.configure(withAPIKey: \"appl_Zx9kQ2mP4vL8nR6tY3wBcD5fG7h\")",
        "xcrun altool --validate-app -f App.ipa --apiKey 2X9R4HXF34 --apiIssuer 57246542-96fe-1a63-e053-0824d011072a",
        "note: the build number is 4412",
        "see: release-notes",
        "mkdir -p dragon.garden.carpet",
        "adb shell settings put global animator_duration_scale 0",
    ]);
}
