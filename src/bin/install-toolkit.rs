//! Writes a prefix shaped like an installed CANN toolkit, so CANN projects find aclnn-cpu the
//! way they find the real one (ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH and a fixed layout):
//!
//! ```text
//! cargo run --release --bin install-toolkit -- --prefix /opt/aclnn-cpu
//! source /opt/aclnn-cpu/set_env.sh
//! ```
//!
//! The prefix holds `include/{acl,aclnn,aclnnop,hccl}`, `lib64/` with the library under every
//! name CANN projects link (each a symlink to the one library) and `libhccl.so`, `set_env.sh`, a CMake
//! package config and a pkg-config file, and `bin/npu-smi`, which prints the emulated
//! devices in the real tool's `info` table (ggml's CMake reads the SoC name from it).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Library names CANN projects link (-l<name>); each is our one library.
const LINK_NAMES: &[&str] = &[
    "ascendcl",
    "nnopbase",
    "opapi",
    "acl_op_compiler",
    "acl_rt",
    "opapi_math",
    "opapi_nn",
    "runtime",
];

fn usage() -> ! {
    eprintln!(
        "usage: install-toolkit --prefix <dir> [--lib <libaclnn_cpu.so>]\n\
         Writes a CANN-toolkit-shaped prefix (include/, lib64/, set_env.sh, bin/npu-smi,\n\
         CMake and pkg-config files). --lib defaults to the libaclnn_cpu.so next to this program."
    );
    std::process::exit(2)
}

fn main() {
    let mut prefix: Option<PathBuf> = None;
    let mut lib: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--prefix" => prefix = args.next().map(PathBuf::from),
            "--lib" => lib = args.next().map(PathBuf::from),
            "-h" | "--help" => usage(),
            _ => usage(),
        }
    }
    let Some(prefix) = prefix else { usage() };
    let lib = lib.unwrap_or_else(|| {
        let exe = std::env::current_exe().expect("the path of this program");
        exe.with_file_name("libaclnn_cpu.so")
    });
    match install(&prefix, &lib) {
        Ok(()) => println!(
            "aclnn-cpu toolkit installed at {}\n  source {}/set_env.sh",
            prefix.display(),
            prefix.display()
        ),
        Err(e) => {
            eprintln!("install-toolkit: {e}");
            std::process::exit(1)
        }
    }
}

fn install(prefix: &Path, lib: &Path) -> io::Result<()> {
    if !lib.is_file() {
        return Err(io::Error::other(format!(
            "{} not found: build it first (cargo build --release)",
            lib.display()
        )));
    }
    fs::create_dir_all(prefix)?;
    let prefix = prefix.canonicalize()?;
    let headers = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    for dir in ["acl", "aclnn", "aclnnop"] {
        let dst = prefix.join("include").join(dir);
        if dst.exists() {
            fs::remove_dir_all(&dst)?;
        }
        copy_tree(&headers.join(dir), &dst)?;
    }
    let lib64 = prefix.join("lib64");
    fs::create_dir_all(&lib64)?;
    let so = lib64.join("libaclnn_cpu.so");
    let _ = fs::remove_file(&so);
    fs::copy(lib, &so)?;
    let static_lib = lib.with_extension("a");
    if static_lib.is_file() {
        fs::copy(&static_lib, lib64.join("libaclnn_cpu.a"))?;
    }
    for name in LINK_NAMES {
        symlink("libaclnn_cpu.so", &lib64.join(format!("lib{name}.so")))?;
    }
    install_hccl(&headers, &prefix, lib)?;
    let version = env!("CARGO_PKG_VERSION");
    write(&prefix.join("set_env.sh"), &set_env(), false)?;
    write(&prefix.join("bin/npu-smi"), NPU_SMI, true)?;
    write(
        &lib64.join("cmake/aclnn-cpu/aclnn-cpuConfig.cmake"),
        CMAKE_CONFIG,
        false,
    )?;
    write(
        &lib64.join("cmake/aclnn-cpu/aclnn-cpuConfigVersion.cmake"),
        &cmake_version(version),
        false,
    )?;
    write(
        &lib64.join("pkgconfig/aclnn-cpu.pc"),
        &pkg_config(&prefix, version),
        false,
    )?;
    write(
        &prefix.join("version.info"),
        &format!("Version={version}\naclnn-cpu=1\n"),
        false,
    )?;
    Ok(())
}

/// HCCL (docs/hccl.md): `include/hccl/` and `lib64/libhccl.so`, built by the same `cargo
/// build` as the library (the `hccl` workspace member) and found next to it.
fn install_hccl(headers: &Path, prefix: &Path, lib: &Path) -> io::Result<()> {
    let so = lib.with_file_name("libhccl.so");
    if !so.is_file() {
        eprintln!(
            "install-toolkit: {} not found, HCCL left out (a plain `cargo build --release` builds it)",
            so.display()
        );
        return Ok(());
    }
    let dst = prefix.join("include/hccl");
    if dst.exists() {
        fs::remove_dir_all(&dst)?;
    }
    copy_tree(&headers.join("hccl"), &dst)?;
    let to = prefix.join("lib64/libhccl.so");
    let _ = fs::remove_file(&to);
    fs::copy(&so, to).map(drop)
}

fn copy_tree(src: &Path, dst: &Path) -> io::Result<()> {
    fs::create_dir_all(dst)?;
    for e in fs::read_dir(src)? {
        let e = e?;
        let to = dst.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &to)?;
        } else {
            fs::copy(e.path(), to)?;
        }
    }
    Ok(())
}

fn symlink(target: &str, link: &Path) -> io::Result<()> {
    let _ = fs::remove_file(link);
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(not(unix))]
    return fs::copy(link.with_file_name(target), link).map(drop);
}

fn write(path: &Path, text: &str, executable: bool) -> io::Result<()> {
    fs::create_dir_all(path.parent().expect("a file in the prefix"))?;
    fs::write(path, text)?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    }
    let _ = executable;
    Ok(())
}

/// CANN's set_env.sh exports these; the prefix is found from the script's own path, so the
/// tree can be moved.
fn set_env() -> String {
    r#"# aclnn-cpu: the environment of a CANN toolkit (source this file).
_aclnn_cpu_home="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export ASCEND_TOOLKIT_HOME="${_aclnn_cpu_home}"
export ASCEND_HOME_PATH="${_aclnn_cpu_home}"
export ASCEND_OPP_PATH="${_aclnn_cpu_home}/opp"
export ASCEND_AICPU_PATH="${_aclnn_cpu_home}"
export TOOLCHAIN_HOME="${_aclnn_cpu_home}/toolkit"
export LD_LIBRARY_PATH="${_aclnn_cpu_home}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
export LIBRARY_PATH="${_aclnn_cpu_home}/lib64${LIBRARY_PATH:+:${LIBRARY_PATH}}"
export PATH="${_aclnn_cpu_home}/bin${PATH:+:${PATH}}"
export CMAKE_PREFIX_PATH="${_aclnn_cpu_home}/lib64/cmake${CMAKE_PREFIX_PATH:+:${CMAKE_PREFIX_PATH}}"
export PKG_CONFIG_PATH="${_aclnn_cpu_home}/lib64/pkgconfig${PKG_CONFIG_PATH:+:${PKG_CONFIG_PATH}}"
unset _aclnn_cpu_home
"#
    .to_string()
}

/// `npu-smi info` as the real tool prints it (the layout ggml's CMake parses: line 7,
/// field 3 is the chip name), for ACLNN_CPU_DEVICE_COUNT devices of ACLNN_CPU_SOC_NAME.
const NPU_SMI: &str = r#"#!/usr/bin/env bash
# aclnn-cpu's npu-smi: the emulated devices in the real tool's `info` table.
case "${1:-}" in
  info) ;;
  *) echo "usage: npu-smi info   (aclnn-cpu emulates only 'info')" >&2; exit 1 ;;
esac
n="${ACLNN_CPU_DEVICE_COUNT:-1}"
soc="${ACLNN_CPU_SOC_NAME:-Ascend910B3}"
name="${soc#Ascend}"
mem="${ACLNN_CPU_DEVICE_MEMORY:-64G}"
case "$mem" in
  *[kK]) mem_mb=$(( ${mem%?} / 1024 )) ;;
  *[mM]) mem_mb=$(( ${mem%?} )) ;;
  *[gG]) mem_mb=$(( ${mem%?} * 1024 )) ;;
  *) mem_mb=$(( mem / 1048576 )) ;;
esac
line="+---------------------------+---------------+----------------------------------------------------+"
dline="+===========================+===============+====================================================+"
echo "+------------------------------------------------------------------------------------------------+"
printf "| %-32s %-62s|\n" "npu-smi 23.0.6 (aclnn-cpu)" "Version: 23.0.6"
echo "$line"
printf "| %-26s| %-14s| %-51s|\n" "NPU   Name" "Health" "Power(W)    Temp(C)           Hugepages-Usage(page)"
printf "| %-26s| %-14s| %-51s|\n" "Chip" "Bus-Id" "AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)"
echo "$dline"
for ((i = 0; i < n; i++)); do
  printf "| %-5s %-20s| %-14s| %-51s|\n" "$i" "$name" "OK" "0.0         0                 0    / 0"
  printf "| %-26s| %-14s| %-51s|\n" "0" "0000:00:0$i.0" "0           0    / 0          0    / $mem_mb"
  echo "$dline"
done
"#;

const CMAKE_CONFIG: &str = r#"# aclnn-cpu as a CMake package: find_package(aclnn-cpu) gives the imported targets
# aclnn-cpu::ascendcl, aclnn-cpu::nnopbase, aclnn-cpu::opapi (all the one library) and the
# variables CANN projects use: ACLNN_CPU_INCLUDE_DIRS and ACLNN_CPU_LIBRARY_DIR.
get_filename_component(_aclnn_cpu_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ACLNN_CPU_INCLUDE_DIRS "${_aclnn_cpu_prefix}/include" "${_aclnn_cpu_prefix}/include/aclnn")
set(ACLNN_CPU_LIBRARY_DIR "${_aclnn_cpu_prefix}/lib64")
foreach(_name ascendcl nnopbase opapi acl_op_compiler acl_rt opapi_math opapi_nn)
  if(NOT TARGET aclnn-cpu::${_name})
    add_library(aclnn-cpu::${_name} SHARED IMPORTED)
    set_target_properties(aclnn-cpu::${_name} PROPERTIES
      IMPORTED_LOCATION "${_aclnn_cpu_prefix}/lib64/libaclnn_cpu.so"
      IMPORTED_SONAME "libaclnn_cpu.so"
      INTERFACE_INCLUDE_DIRECTORIES "${ACLNN_CPU_INCLUDE_DIRS}")
  endif()
endforeach()
set(aclnn-cpu_FOUND TRUE)
"#;

fn cmake_version(v: &str) -> String {
    format!(
        "set(PACKAGE_VERSION \"{v}\")\n\
         if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)\n  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n\
         else()\n  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n    \
         set(PACKAGE_VERSION_EXACT TRUE)\n  endif()\nendif()\n"
    )
}

fn pkg_config(prefix: &Path, v: &str) -> String {
    format!(
        "prefix={}\nincludedir=${{prefix}}/include\nlibdir=${{prefix}}/lib64\n\n\
         Name: aclnn-cpu\nDescription: CANN's aclnn operator API and runtime on the CPU\nVersion: {v}\n\
         Cflags: -I${{includedir}} -I${{includedir}}/aclnn\n\
         Libs: -L${{libdir}} -Wl,-rpath,${{libdir}} -lascendcl -lnnopbase -lopapi\n",
        prefix.display()
    )
}
