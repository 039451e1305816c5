"""A code folder packed as the DDL server and workers read it: a tar in a zstd frame.

The standard library has no zstd compressor, so the tar goes into a zstd frame of raw (stored)
blocks, which every zstd reader accepts. Entries are sorted, with mtime 0 and owner 0, so the same
files give the same bytes and the server keeps one copy.
"""
import hashlib
import io
import os
import stat
import struct
import tarfile

SKIPPED_NAMES = (".git", "__pycache__")
_ZSTD_MAGIC = 0xFD2FB528
_BLOCK = 128 * 1024  # the largest block a 128 KiB window allows


def zstd_frame(data):
    """data in one zstd frame of raw blocks (RFC 8878): no compression, no checksum."""
    out = io.BytesIO()
    out.write(struct.pack("<I", _ZSTD_MAGIC))
    # Frame header: no content size, no single segment, no checksum, no dictionary; then the
    # window descriptor 2^17 (exponent 7, mantissa 0).
    out.write(bytes([0x00, 7 << 3]))
    offsets = range(0, len(data), _BLOCK) if data else [0]
    for start in offsets:
        block = data[start:start + _BLOCK]
        last = start + _BLOCK >= len(data)
        header = (len(block) << 3) | (0 << 1) | (1 if last else 0)  # type 0: raw
        out.write(struct.pack("<I", header)[:3])
        out.write(block)
    return out.getvalue()


def _entries(folder):
    """(relative path, absolute path) of everything under folder, sorted, skipped names left out."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_NAMES)
        for name in dirs + sorted(f for f in files if f not in SKIPPED_NAMES):
            path = os.path.join(root, name)
            found.append((os.path.relpath(path, folder).replace(os.sep, "/"), path))
    return sorted(found)


def pack_folder(folder):
    """(bytes of the tar.zst, sha256 hex, file count, warnings) of folder's contents."""
    buffer = io.BytesIO()
    files = 0
    warnings = []
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for relative, path in _entries(folder):
            info = os.lstat(path)
            entry = tarfile.TarInfo(relative)
            entry.mtime = 0
            entry.uid = entry.gid = 0
            entry.uname = entry.gname = ""
            entry.mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                warnings.append(f"{relative}: a symbolic link, left out")
                continue
            if stat.S_ISDIR(info.st_mode):
                entry.type = tarfile.DIRTYPE
                tar.addfile(entry)
            elif stat.S_ISREG(info.st_mode):
                entry.size = info.st_size
                with open(path, "rb") as f:
                    tar.addfile(entry, f)
                files += 1
            else:
                warnings.append(f"{relative}: not a file or folder, left out")
    data = zstd_frame(buffer.getvalue())
    return data, hashlib.sha256(data).hexdigest(), files, warnings


def dataset_files(folder):
    """The files of a dataset folder as the manifest lists them: (path, absolute path, size,
    sha256, executable), sorted by path."""
    files = []
    for relative, path in _entries(folder):
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            continue
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        files.append((relative, path, info.st_size, digest.hexdigest(),
                      bool(info.st_mode & stat.S_IXUSR)))
    return files
