//! Many `goldfish checkpoint` processes at once.

use crate::util::{Env, TestResult};

#[test]
fn twenty_processes_twenty_checkpoints() -> TestResult {
    let env = Env::new()?;
    let children = (0..20)
        .map(|i| {
            env.cmd(&["checkpoint", &format!("parallel checkpoint {i}")])
                .stdout(std::process::Stdio::null())
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>()?;
    for mut child in children {
        assert!(child.wait()?.success());
    }
    let v = env.json(&["recall", "--limit", "100"])?;
    let mut got: Vec<String> = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .filter_map(|c| c["description"].as_str().map(str::to_string))
        .collect();
    got.sort();
    let mut want: Vec<String> = (0..20)
        .map(|i| format!("parallel checkpoint {i}"))
        .collect();
    want.sort();
    assert_eq!(got, want);
    let ids: std::collections::BTreeSet<&str> = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(ids.len(), 20, "ids are unique");
    Ok(())
}
