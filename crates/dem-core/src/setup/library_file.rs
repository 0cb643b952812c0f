//! What a plugin file must be before the dynamic loader opens it: a regular file (a FIFO
//! named `*.so` made the loader wait forever), and, for an ELF library, one whose program
//! and section headers and loadable segments lie within the file (the loader maps a
//! truncated library and the process died of a bus error when it touched the missing
//! part). Files that are not ELF are left to the loader, which refuses them with a message.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes of a 64-bit ELF header.
const HEADER: usize = 64;

/// Reads what it can of `buf.len()` bytes; returns how many it read.
fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> Result<usize, String> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(format!("cannot read the file: {e}")),
        }
    }
    Ok(got)
}

/// Why `path` cannot be a library to open, if it cannot.
pub fn check(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read the file: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file (a directory, a FIFO or a device): not a library".into());
    }
    let len = meta.len();
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot open the file: {e}"))?;
    let mut head = [0u8; HEADER];
    let got = read_up_to(&mut file, &mut head)?;
    // Not ELF, or not the 64-bit little-endian ELF this checks: the loader's own message.
    if got < 6 || &head[..4] != b"\x7fELF" || head[4] != 2 || head[5] != 1 {
        return Ok(());
    }
    if got < HEADER {
        return Err(format!(
            "truncated ELF file: {len} bytes, shorter than its header"
        ));
    }
    let u16_at = |b: &[u8], i: usize| u64::from(u16::from_le_bytes([b[i], b[i + 1]]));
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let table = |offset: u64, size: u64, count: u64, what: &str| {
        let end = size
            .checked_mul(count)
            .and_then(|s| s.checked_add(offset))
            .filter(|&end| end <= len);
        end.map(|_| ()).ok_or_else(|| {
            format!(
                "truncated or corrupt library: its {what} ({count} of {size} bytes at offset \
                 {offset}) end past the file's {len} bytes"
            )
        })
    };
    let (phoff, phentsize, phnum) = (u64_at(&head, 32), u16_at(&head, 54), u16_at(&head, 56));
    let (shoff, shentsize, shnum) = (u64_at(&head, 40), u16_at(&head, 58), u16_at(&head, 60));
    table(phoff, phentsize, phnum, "program headers")?;
    if shnum > 0 {
        table(shoff, shentsize, shnum, "section headers")?;
    }
    if phnum > 0 && phentsize < 56 {
        return Err(format!(
            "corrupt library: program headers of {phentsize} bytes"
        ));
    }
    // Within the file (tested above): at most 65,535 headers of 65,535 bytes.
    let mut headers = vec![0u8; (phentsize * phnum) as usize];
    file.seek(SeekFrom::Start(phoff))
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if read_up_to(&mut file, &mut headers)? < headers.len() {
        return Err("truncated library: its program headers cannot be read".into());
    }
    for h in headers.chunks(phentsize.max(1) as usize) {
        let (offset, size) = (u64_at(h, 8), u64_at(h, 32));
        if offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(format!(
                "truncated or corrupt library: a segment of {size} bytes at offset {offset} \
                 ends past the file's {len} bytes"
            ));
        }
    }
    Ok(())
}
