//! Expectations of a scenario step: a path into the result and what must hold there, with
//! a readable failure (expectation, actual value, diff) when it does not.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

/// One expectation. Every condition given must hold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Where in the result: `entries[0].id`, `hits[*].entry.id` (`*` collects an array),
    /// `markdown`. Default: the whole result.
    pub path: Option<String>,
    /// Equal to this value.
    pub equals: Option<Value>,
    /// Not equal to this value.
    pub not_equals: Option<Value>,
    /// An array containing each of these values, or a string containing each substring.
    pub contains: Option<Value>,
    /// An array containing none of these values, or a string containing none of them.
    pub not_contains: Option<Value>,
    /// A string matching this regular expression.
    pub matches: Option<String>,
    /// An array (or string, or object) of exactly this length.
    pub count: Option<usize>,
    /// A number (or the length of an array or string) at most this.
    pub at_most: Option<f64>,
    /// A number (or the length of an array or string) at least this.
    pub at_least: Option<f64>,
    /// A number, or an array of numbers, equal within `tolerance` (default 1e-9).
    pub approx: Option<Value>,
    /// Tolerance for `approx`.
    pub tolerance: Option<f64>,
    /// These values appear in the array in this relative order (all must be present).
    pub order: Option<Vec<Value>>,
}

/// Why an expectation failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// What was expected, in words.
    pub expectation: String,
    /// The actual value (pretty JSON).
    pub actual: String,
    /// A unified diff of expected vs actual, when that helps.
    pub diff: Option<String>,
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Follows `path` into `v`.
pub fn get_path(v: &Value, path: &str) -> Result<Value, String> {
    let mut current = vec![v.clone()];
    let mut collected = false;
    let segments = path.replace('[', ".[");
    for seg in segments.split('.').filter(|s| !s.is_empty()) {
        let mut next = Vec::new();
        for c in &current {
            if seg == "[*]" {
                let arr = c
                    .as_array()
                    .ok_or_else(|| format!("`{path}`: `[*]` on a non-array"))?;
                next.extend(arr.iter().cloned());
                collected = true;
            } else if let Some(i) = seg.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                let i: usize = i
                    .parse()
                    .map_err(|_| format!("`{path}`: bad index `{seg}`"))?;
                next.push(
                    c.get(i)
                        .cloned()
                        .ok_or_else(|| format!("`{path}`: no element {i}"))?,
                );
            } else if let Ok(i) = seg.parse::<usize>()
                && c.is_array()
            {
                next.push(
                    c.get(i)
                        .cloned()
                        .ok_or_else(|| format!("`{path}`: no element {i}"))?,
                );
            } else {
                next.push(
                    c.get(seg)
                        .cloned()
                        .ok_or_else(|| format!("`{path}`: no field `{seg}`"))?,
                );
            }
        }
        current = next;
    }
    Ok(if collected {
        Value::Array(current)
    } else {
        current.pop().unwrap_or(Value::Null)
    })
}

/// `${pad:N}` → N bytes of filler text, for bound tests (e.g. a 4097-byte summary).
fn pad(s: &str) -> String {
    let re = regex::Regex::new(r"\$\{pad:([0-9]{1,7})\}").expect("valid regex");
    re.replace_all(s, |c: &regex::Captures<'_>| {
        let n: usize = c[1].parse().unwrap_or(0);
        "lorem ipsum dolor sit amet "
            .chars()
            .cycle()
            .take(n)
            .collect::<String>()
    })
    .into_owned()
}

/// Replaces `${name}` in strings: a string that is exactly `${name}` becomes the saved
/// value itself; elsewhere the value is interpolated as text. `${pad:N}` expands to N
/// bytes of filler text.
pub fn substitute(v: &Value, vars: &HashMap<String, Value>) -> Value {
    match v {
        Value::String(s) if s.contains("${pad:") => substitute(&Value::String(pad(s)), vars),
        Value::String(s) => {
            if let Some(name) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
                && let Some(val) = vars.get(name)
            {
                return val.clone();
            }
            let mut out = s.clone();
            for (k, val) in vars {
                let text = match val {
                    Value::String(t) => t.clone(),
                    other => other.to_string(),
                };
                out = out.replace(&format!("${{{k}}}"), &text);
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, vars)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), substitute(x, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        other => vec![other.clone()],
    }
}

fn length(v: &Value) -> Option<usize> {
    match v {
        Value::Array(a) => Some(a.len()),
        Value::String(s) => Some(s.len()),
        Value::Object(o) => Some(o.len()),
        _ => None,
    }
}

fn has(hay: &Value, needle: &Value) -> bool {
    match (hay, needle) {
        (Value::Array(a), n) => a.contains(n),
        (Value::String(s), Value::String(n)) => s.contains(n.as_str()),
        _ => false,
    }
}

fn fail(expectation: String, actual: &Value, diff: Option<String>) -> Failure {
    Failure {
        expectation,
        actual: pretty(actual),
        diff,
    }
}

/// Checks one expectation against a result.
pub fn check(e: &Expect, result: &Value) -> Result<(), Failure> {
    let at = e.path.as_deref().unwrap_or("");
    let shown = if at.is_empty() {
        "the result".to_string()
    } else {
        format!("`{at}`")
    };
    let v = if at.is_empty() {
        result.clone()
    } else {
        get_path(result, at).map_err(|msg| fail(format!("{shown} exists"), result, Some(msg)))?
    };
    if let Some(want) = &e.equals
        && &v != want
    {
        let diff = similar::TextDiff::from_lines(pretty(want), pretty(&v))
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        return Err(fail(format!("{shown} equals {want}"), &v, Some(diff)));
    }
    if let Some(not) = &e.not_equals
        && &v == not
    {
        return Err(fail(format!("{shown} is not {not}"), &v, None));
    }
    if let Some(c) = &e.contains {
        for n in list(c) {
            if !has(&v, &n) {
                return Err(fail(format!("{shown} contains {n}"), &v, None));
            }
        }
    }
    if let Some(c) = &e.not_contains {
        for n in list(c) {
            if has(&v, &n) {
                return Err(fail(format!("{shown} does not contain {n}"), &v, None));
            }
        }
    }
    if let Some(re) = &e.matches {
        let ok = regex::Regex::new(re)
            .map(|r| v.as_str().is_some_and(|s| r.is_match(s)))
            .unwrap_or(false);
        if !ok {
            return Err(fail(format!("{shown} matches /{re}/"), &v, None));
        }
    }
    if let Some(n) = e.count
        && length(&v) != Some(n)
    {
        return Err(fail(
            format!("{shown} has {n} elements (has {:?})", length(&v)),
            &v,
            None,
        ));
    }
    let magnitude = v.as_f64().or_else(|| length(&v).map(|l| l as f64));
    if let Some(max) = e.at_most
        && magnitude.is_none_or(|m| m > max)
    {
        return Err(fail(format!("{shown} is at most {max}"), &v, None));
    }
    if let Some(min) = e.at_least
        && magnitude.is_none_or(|m| m < min)
    {
        return Err(fail(format!("{shown} is at least {min}"), &v, None));
    }
    if let Some(want) = &e.approx {
        let tol = e.tolerance.unwrap_or(1e-9);
        let (w, a) = (list(want), list(&v));
        let ok = w.len() == a.len()
            && w.iter()
                .zip(&a)
                .all(|(x, y)| match (x.as_f64(), y.as_f64()) {
                    (Some(x), Some(y)) => (x - y).abs() <= tol,
                    _ => false,
                });
        if !ok {
            return Err(fail(format!("{shown} ≈ {want} (±{tol})"), &v, None));
        }
    }
    if let Some(order) = &e.order {
        let arr = v.as_array().cloned().unwrap_or_default();
        let positions: Vec<Option<usize>> = order
            .iter()
            .map(|o| arr.iter().position(|x| x == o))
            .collect();
        let ok = positions.iter().all(Option::is_some) && positions.windows(2).all(|w| w[0] < w[1]);
        if !ok {
            return Err(fail(
                format!(
                    "{shown} lists {} in this order",
                    Value::Array(order.clone())
                ),
                &v,
                None,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_and_conditions() {
        let r = json!({"hits": [{"entry": {"id": "a"}, "decay": 0.5}, {"entry": {"id": "b"}, "decay": 1.0}], "markdown": "hello world"});
        assert_eq!(get_path(&r, "hits[*].entry.id").unwrap(), json!(["a", "b"]));
        assert_eq!(get_path(&r, "hits.1.entry.id").unwrap(), json!("b"));
        assert_eq!(get_path(&r, "hits[0].decay").unwrap(), json!(0.5));
        assert!(get_path(&r, "hits[5]").is_err());
        let ok = |e: Expect| check(&e, &r).is_ok();
        assert!(ok(Expect {
            path: Some("hits[*].entry.id".into()),
            order: Some(vec![json!("a"), json!("b")]),
            ..Default::default()
        }));
        assert!(!ok(Expect {
            path: Some("hits[*].entry.id".into()),
            order: Some(vec![json!("b"), json!("a")]),
            ..Default::default()
        }));
        assert!(ok(Expect {
            path: Some("hits[*].decay".into()),
            approx: Some(json!([0.5, 1.0])),
            ..Default::default()
        }));
        assert!(ok(Expect {
            path: Some("markdown".into()),
            contains: Some(json!("world")),
            at_most: Some(20.0),
            ..Default::default()
        }));
        let f = check(
            &Expect {
                path: Some("hits[0].entry.id".into()),
                equals: Some(json!("z")),
                ..Default::default()
            },
            &r,
        )
        .unwrap_err();
        assert!(
            f.expectation.contains("equals")
                && f.actual.contains("\"a\"")
                && f.diff.unwrap().contains("-\"z\"")
        );
    }

    #[test]
    fn substitution() {
        let vars: HashMap<String, Value> = [
            ("id".to_string(), json!("mem-1")),
            ("n".to_string(), json!(3)),
        ]
        .into();
        assert_eq!(
            substitute(
                &json!({"a": "${id}", "b": "x ${n} ${id}", "c": "${n}"}),
                &vars
            ),
            json!({"a": "mem-1", "b": "x 3 mem-1", "c": 3})
        );
        let padded = substitute(&json!("${pad:4097}"), &vars);
        assert_eq!(padded.as_str().unwrap().len(), 4097);
    }
}
