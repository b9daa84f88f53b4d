//! NVIDIA's Vulkan driver on a machine with no display.
//!
//! NVIDIA's driver registers its Vulkan implementation through a manifest naming
//! `libGLX_nvidia.so.0`. On a machine with no display server (a GPU server, a container with
//! the driver mounted), the GLX entry point refuses to create an instance, and Vulkan's loader
//! reports no driver at all: measured on an H200 with driver 580.159.04, where the loader
//! said "Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr' for ICD
//! libGLX_nvidia.so.0". The same driver's `libEGL_nvidia.so.0` exports the same Vulkan entry
//! points and works without a display; a manifest naming it made the H200 an adapter.
//!
//! So, before any thread starts, the binary calls [`prepare`]: on a Linux machine with an
//! NVIDIA device node, no display, no manifest that already names the EGL library, and no
//! Vulkan driver variable set by the user but one naming NVIDIA's GLX manifest, it writes such
//! a manifest into a directory of its own under the temporary directory and adds it with
//! `VK_ADD_DRIVER_FILES`, which keeps every other driver. Where `VK_DRIVER_FILES` (or the older
//! `VK_ICD_FILENAMES`) names NVIDIA's GLX manifest and nothing else, the loader ignores
//! `VK_ADD_DRIVER_FILES` (measured on the H200: no adapter), so the manifest is appended to
//! that variable's list instead. `NEARDUP_VULKAN_AS_IS=1` turns this off. The rule is the pure
//! function [`decide`], tested on its own; [`setting`] turns its answer into the variable to
//! set and [`prepare`] sets it.

use std::path::{Path, PathBuf};

/// Variables through which a user (or a container) names the Vulkan drivers to load instead
/// of the installed ones. neardup adds its manifest beside them only when they name NVIDIA's
/// GLX library and nothing else that could serve.
pub const DRIVER_VARS: [&str; 2] = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"];

/// The loader's variable for drivers added to the others: neardup's own way in, so when it is
/// already set neardup leaves everything alone.
pub const ADD_VAR: &str = "VK_ADD_DRIVER_FILES";

/// The variable that turns the headless manifest off.
pub const AS_IS_VAR: &str = "NEARDUP_VULKAN_AS_IS";

/// NVIDIA's control device node: present where an NVIDIA driver is loaded.
pub const NVIDIA_DEVICE: &str = "/dev/nvidiactl";

/// The NVIDIA library that serves Vulkan without a display.
pub const EGL_LIB: &str = "libEGL_nvidia.so.0";

/// What the machine looks like, as far as the rule needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// [`ADD_VAR`] or [`AS_IS_VAR`] is set.
    pub user_chose: bool,
    /// The first [`DRIVER_VARS`] variable set (the one the loader reads) and the manifests it
    /// names, with their text.
    pub chosen: Option<(&'static str, Vec<(PathBuf, String)>)>,
    /// `DISPLAY` or `WAYLAND_DISPLAY` is set.
    pub display: bool,
    /// [`NVIDIA_DEVICE`] exists.
    pub nvidia_device: bool,
    /// Where [`EGL_LIB`] was found, if anywhere.
    pub egl_lib: Option<PathBuf>,
    /// The driver manifests found in the loader's standard directories, with their text.
    pub manifests: Vec<(PathBuf, String)>,
}

/// What to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Nothing: the reason, for `neardup gpus` to print.
    Leave(&'static str),
    /// Write a manifest naming this library with this API version, and add it through `var`.
    Add {
        /// The EGL library, absolute.
        lib: PathBuf,
        /// The API version the NVIDIA manifest declares (or a safe default).
        api_version: String,
        /// [`ADD_VAR`] when no driver variable is set; else the [`DRIVER_VARS`] variable that
        /// is, whose list the manifest joins (the loader then reads no other).
        var: &'static str,
    },
}

/// The rule (see the module's documentation).
pub fn decide(f: &Facts) -> Decision {
    if f.user_chose {
        return Decision::Leave("VK_ADD_DRIVER_FILES or NEARDUP_VULKAN_AS_IS is set");
    }
    if f.display {
        return Decision::Leave("a display is set");
    }
    if !f.nvidia_device {
        return Decision::Leave("no NVIDIA device node");
    }
    let Some(lib) = &f.egl_lib else {
        return Decision::Leave("no libEGL_nvidia.so.0 found");
    };
    let (var, considered) = match &f.chosen {
        Some((var, named)) => (*var, named),
        None => (ADD_VAR, &f.manifests),
    };
    if f.chosen.is_some() && !considered.iter().any(|(_, t)| t.contains("libGLX_nvidia")) {
        return Decision::Leave("VK_DRIVER_FILES names drivers other than NVIDIA's GLX one");
    }
    if considered.iter().any(|(_, t)| t.contains("libEGL_nvidia")) {
        return Decision::Leave("a manifest already names libEGL_nvidia");
    }
    let api_version = considered
        .iter()
        .filter(|(_, text)| text.contains("nvidia"))
        .find_map(|(_, text)| api_version(text))
        .unwrap_or_else(|| "1.3.0".to_string());
    Decision::Add {
        lib: lib.clone(),
        api_version,
        var,
    }
}

/// The value `var` takes for the loader to read `manifest` too: the manifest alone for
/// [`ADD_VAR`], else the variable's list as it was (`old`) with the manifest after it.
pub fn value(var: &str, old: Option<&str>, manifest: &Path) -> std::ffi::OsString {
    let mut v = std::ffi::OsString::new();
    if let Some(old) = old.filter(|o| var != ADD_VAR && !o.is_empty()) {
        v.push(old.trim_end_matches(':'));
        v.push(":");
    }
    v.push(manifest);
    v
}

/// The `api_version` a manifest declares, if it is a dotted version.
fn api_version(manifest: &str) -> Option<String> {
    let at = manifest.find("\"api_version\"")?;
    let rest = &manifest[at + "\"api_version\"".len()..];
    let open = rest.find('"')?;
    let rest = &rest[open + 1..];
    let v = &rest[..rest.find('"')?];
    let dotted = !v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    dotted.then(|| v.to_string())
}

/// The manifest's text: the library's absolute path, JSON-escaped.
pub fn manifest(lib: &Path, api_version: &str) -> String {
    let path = serde_json::to_string(&lib.to_string_lossy()).unwrap_or_else(|_| "\"\"".into());
    format!(
        "{{\"file_format_version\": \"1.0.1\", \"ICD\": {{\"library_path\": {path}, \"api_version\": \"{api_version}\"}}}}\n"
    )
}

/// Directories the loader reads driver manifests from, and NVIDIA's container location.
const MANIFEST_DIRS: [&str; 4] = [
    "/etc/vulkan/icd.d",
    "/usr/share/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
    "/usr/local/nvidia/share/vulkan/icd.d",
];

/// Directories searched for [`EGL_LIB`] after `LD_LIBRARY_PATH`'s.
const LIB_DIRS: [&str; 6] = [
    "/usr/local/nvidia/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
];

/// The facts of this machine.
pub fn facts() -> Facts {
    let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
    let user_chose = set(ADD_VAR) || set(AS_IS_VAR);
    let display = set("DISPLAY") || set("WAYLAND_DISPLAY");
    let nvidia_device = Path::new(NVIDIA_DEVICE).exists();
    let mut facts = Facts {
        user_chose,
        display,
        nvidia_device,
        ..Facts::default()
    };
    if user_chose || display || !nvidia_device {
        return facts;
    }
    let read = |p: PathBuf| std::fs::read_to_string(&p).ok().map(|t| (p, t));
    facts.chosen = DRIVER_VARS.iter().find_map(|&var| {
        let list = std::env::var(var).ok().filter(|x| !x.is_empty())?;
        let named = list
            .split(':')
            .filter(|p| !p.is_empty())
            .filter_map(|p| read(PathBuf::from(p)))
            .collect();
        Some((var, named))
    });
    let ld = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    facts.egl_lib = ld
        .split(':')
        .filter(|d| !d.is_empty())
        .chain(LIB_DIRS)
        .map(|d| Path::new(d).join(EGL_LIB))
        .find(|p| p.exists());
    for dir in MANIFEST_DIRS {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                facts.manifests.extend(read(p));
            }
        }
    }
    facts
}

/// Applies [`decide`] to this machine: writes the manifest and sets the variable [`setting`]
/// names. Returns the manifest's path when it did. Must run before any other thread starts
/// (it sets an environment variable); the binary calls it first thing in `main`. A manifest
/// that cannot be written leaves everything as it was.
pub fn prepare() -> Option<PathBuf> {
    let (var, value, path) = setting()?;
    std::env::set_var(var, value);
    Some(path)
}

/// [`prepare`] without the environment: applies [`decide`] to this machine and writes the
/// manifest when it says so, returning the variable to set, its new value and the manifest's
/// path, for the caller to set before the first GPU call (the Python package does, on import,
/// through `os.environ`, which its own threads read safely). A manifest that cannot be
/// written gives `None`.
pub fn setting() -> Option<(&'static str, std::ffi::OsString, PathBuf)> {
    let (var, path) = write_manifest()?;
    let old = std::env::var(var).ok();
    Some((var, value(var, old.as_deref(), &path), path))
}

/// Writes the manifest when [`decide`] says so on this machine; its path and the variable
/// that is to name it.
fn write_manifest() -> Option<(&'static str, PathBuf)> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let decision = decide(&facts());
    let _ = DECIDED.set(decision.clone());
    let Decision::Add {
        lib,
        api_version,
        var,
    } = decision
    else {
        return None;
    };
    let uid = user_id();
    let dir = std::env::temp_dir().join(format!("neardup-vulkan-{uid}"));
    if !own_private_dir(&dir, &uid) {
        return None;
    }
    let path = dir.join("nvidia_egl_icd.json");
    let text = manifest(&lib, &api_version);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        // Written beside and renamed, so a concurrent run never reads half a manifest.
        let tmp = dir.join(format!("nvidia_egl_icd.json.{}", std::process::id()));
        std::fs::write(&tmp, &text).ok()?;
        std::fs::rename(&tmp, &path).ok()?;
    }
    Some((var, path))
}

/// What [`setting`] decided in this process, for `neardup gpus` to explain an empty list.
static DECIDED: std::sync::OnceLock<Decision> = std::sync::OnceLock::new();

/// What [`setting`] (or [`prepare`]) decided, if it ran.
pub fn decided() -> Option<&'static Decision> {
    DECIDED.get()
}

/// Whether `dir` is a directory of this user's that no one else may write, made so when it
/// is missing: the loader runs the library a manifest names, so a manifest in a directory
/// another user could write into is never used.
#[cfg(unix)]
fn own_private_dir(dir: &Path, uid: &str) -> bool {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid().to_string() == uid && m.mode() & 0o022 == 0)
}

#[cfg(not(unix))]
fn own_private_dir(_dir: &Path, _uid: &str) -> bool {
    false
}

/// The user's id, from `/proc/self` (no libc call), so users do not share a directory.
fn user_id() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next().map(str::to_string))
        })
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headless() -> Facts {
        Facts {
            user_chose: false,
            chosen: None,
            display: false,
            nvidia_device: true,
            egl_lib: Some(PathBuf::from("/usr/local/nvidia/lib64/libEGL_nvidia.so.0")),
            manifests: vec![(
                PathBuf::from("/usr/share/vulkan/icd.d/nvidia_icd.json"),
                "{\n \"file_format_version\" : \"1.0.1\",\n \"ICD\": {\n  \"library_path\": \"libGLX_nvidia.so.0\",\n  \"api_version\" : \"1.4.312\"\n }\n}\n".into(),
            )],
        }
    }

    /// The H200 machine's facts: the manifest is added, with the driver's API version, through
    /// `VK_ADD_DRIVER_FILES`; where `VK_DRIVER_FILES` (or `VK_ICD_FILENAMES`) names the GLX
    /// manifest, as the measuring script did, through that variable, since the loader then
    /// ignores `VK_ADD_DRIVER_FILES` (the H200 showed no adapter when it was used).
    #[test]
    fn a_headless_nvidia_machine_gets_the_egl_manifest() {
        let lib = PathBuf::from("/usr/local/nvidia/lib64/libEGL_nvidia.so.0");
        let added = |var| Decision::Add {
            lib: lib.clone(),
            api_version: "1.4.312".into(),
            var,
        };
        assert_eq!(decide(&headless()), added(ADD_VAR));
        for var in DRIVER_VARS {
            let mut named = headless();
            named.chosen = Some((var, named.manifests.clone()));
            named.manifests.clear();
            assert_eq!(decide(&named), added(var));
        }
        let Decision::Add {
            lib, api_version, ..
        } = decide(&headless())
        else {
            unreachable!()
        };
        let text = manifest(&lib, &api_version);
        let v: serde_json::Value = serde_json::from_str(&text).expect("the manifest is JSON");
        assert_eq!(
            v["ICD"]["library_path"],
            "/usr/local/nvidia/lib64/libEGL_nvidia.so.0"
        );
        assert_eq!(v["ICD"]["api_version"], "1.4.312");
        assert_eq!(v["file_format_version"], "1.0.1");
    }

    /// The variable's new value: the manifest alone where it is added, the user's list and then
    /// the manifest where a driver variable is extended.
    #[test]
    fn a_driver_list_keeps_what_it_named() {
        let m = Path::new("/tmp/neardup-vulkan-0/nvidia_egl_icd.json");
        let glx = "/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json";
        let joined = format!("{glx}:{}", m.display());
        assert_eq!(value(ADD_VAR, None, m), m.as_os_str());
        assert_eq!(value(ADD_VAR, Some("/x.json"), m), m.as_os_str());
        assert_eq!(value("VK_DRIVER_FILES", Some(glx), m), joined.as_str());
        let trailing = format!("{glx}:");
        assert_eq!(
            value("VK_DRIVER_FILES", Some(&trailing), m),
            joined.as_str()
        );
        assert_eq!(value("VK_ICD_FILENAMES", Some(""), m), m.as_os_str());
    }

    /// Each fact that makes the manifest wrong or unneeded leaves the machine alone.
    #[test]
    fn anything_else_is_left_alone() {
        type Change = fn(&mut Facts);
        let cases: [(&str, Change); 6] = [
            ("VK_ADD_DRIVER_FILES or NEARDUP_VULKAN_AS_IS is set", |f| {
                f.user_chose = true
            }),
            (
                "VK_DRIVER_FILES names drivers other than NVIDIA's GLX one",
                |f| {
                    f.chosen = Some((
                        "VK_DRIVER_FILES",
                        vec![(
                            PathBuf::from("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"),
                            "{\"ICD\": {\"library_path\": \"libvulkan_lvp.so\"}}".into(),
                        )],
                    ))
                },
            ),
            ("a display is set", |f| f.display = true),
            ("no NVIDIA device node", |f| f.nvidia_device = false),
            ("no libEGL_nvidia.so.0 found", |f| f.egl_lib = None),
            ("a manifest already names libEGL_nvidia", |f| {
                f.manifests.push((
                    PathBuf::from("/etc/vulkan/icd.d/egl.json"),
                    "{\"ICD\": {\"library_path\": \"libEGL_nvidia.so.0\"}}".into(),
                ))
            }),
        ];
        for (why, change) in cases {
            let mut f = headless();
            change(&mut f);
            assert_eq!(decide(&f), Decision::Leave(why));
        }
    }

    /// Without an NVIDIA manifest, or with a malformed version, a safe default is declared;
    /// odd characters in the path stay inside the JSON string.
    #[test]
    fn versions_and_paths_are_safe() {
        let mut f = headless();
        f.manifests.clear();
        assert!(matches!(decide(&f), Decision::Add { api_version, .. } if api_version == "1.3.0"));
        f.manifests.push((
            PathBuf::from("x.json"),
            "nvidia \"api_version\": \"1.4\\\" }\"".into(),
        ));
        assert!(matches!(decide(&f), Decision::Add { api_version, .. } if api_version == "1.3.0"));
        assert_eq!(
            api_version("\"api_version\" : \"1.2.3\""),
            Some("1.2.3".into())
        );
        let text = manifest(Path::new("/odd \"dir\"\\/libEGL_nvidia.so.0"), "1.3.0");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["ICD"]["library_path"],
            "/odd \"dir\"\\/libEGL_nvidia.so.0"
        );
    }
}
