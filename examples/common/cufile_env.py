"""What cuFile needs of a machine without GPUDirect Storage before it takes a file: a folder on a
filesystem it supports (ext4 or xfs; tmpfs and overlay are refused), and a udev entry for that
filesystem's block device.

cuFile asks libudev for the `ID_FS_TYPE` and `ID_FS_USAGE` of the block device a file lives on
(the udev database, `/run/udev/data/b<major>:<minor>`). A virtual machine or a container without
udev has no such entry, and then cuFile refuses every file: `handle_register` fails with
HANDLE_NOT_REGISTERED (5027), in compatibility mode too. `udev_entry()` writes the entry the udev
daemon would have written, when it is missing and the process may write it (root), and says what
it did; `forget()` removes it again.
"""
import os
import stat
import tempfile

UDEV_DATA = "/run/udev/data"
SUPPORTED = ("ext4", "xfs")


def filesystem_of(path):
    """(filesystem type, major, minor) of the filesystem holding `path`, from /proc/self/mountinfo
    (the mount whose device number is the path's st_dev); type None when no mount matches."""
    st = os.stat(path)
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    fstype = None
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                if fields[2] == f"{major}:{minor}" and " - " in line:
                    fstype = line.split(" - ", 1)[1].split()[0]
                    break
    except OSError:
        pass
    return fstype, major, minor


def folder_for_cufile(candidates=()):
    """The first existing, writable folder among `candidates`, $CUFILE_DATA_DIR, this checkout,
    the home folder, /var/tmp and /tmp whose filesystem cuFile supports, or None."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    seen = []
    for folder in [*candidates, os.environ.get("CUFILE_DATA_DIR"), here, os.path.expanduser("~"),
                   "/var/tmp", tempfile.gettempdir()]:
        if not folder or folder in seen or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            continue
        seen.append(folder)
        if filesystem_of(folder)[0] in SUPPORTED:
            return folder
    return None


def udev_entry(path):
    """Make sure the udev database describes the filesystem holding `path`; returns
    (what was done, as a sentence; the entry's path if this call wrote it, else None)."""
    fstype, major, minor = filesystem_of(path)
    entry = os.path.join(UDEV_DATA, f"b{major}:{minor}")
    if fstype not in SUPPORTED:
        return f"{path} is on {fstype or 'an unknown filesystem'}, which cuFile does not take", None
    try:
        with open(entry) as f:
            text = f.read()
        if "ID_FS_TYPE=" in text:
            return f"udev entry {entry} present", None
    except OSError:
        pass
    if os.geteuid() != 0:
        return (f"no udev entry {entry} for the {fstype} filesystem, and only root may write one: "
                f"cuFile will refuse the file (HANDLE_NOT_REGISTERED)"), None
    os.makedirs(UDEV_DATA, exist_ok=True)
    with open(entry, "w") as f:
        f.write(f"E:ID_FS_TYPE={fstype}\nE:ID_FS_USAGE=filesystem\n")
    os.chmod(entry, stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)
    return (f"this machine has no udev entry for the {fstype} filesystem of {path} (device {major}:{minor}), "
            f"which cuFile reads through libudev: wrote {entry}"), entry


def forget(entry):
    """Remove an entry `udev_entry` wrote (None: nothing to do)."""
    if entry:
        try:
            os.remove(entry)
        except OSError:
            pass
