#!/usr/bin/env python3
"""dag_embed.py: puts a kernels file's ahead-of-time GPU build into a C file.

    tools/dag_embed.py --hip        kernels.h kernels.hipfb -o kernels_hip.c
    tools/dag_embed.py --level-zero kernels.h kernels.spv   -o kernels_ze.c

kernels.h holds DAG_KERNELs (see dag_kernels.h). The image is what hipcc
--genco made of it (a code object bundle) or the SPIR-V that llvm-spirv made
of it. The C file holds the image as bytes and, for each kernel, the record
the program looks for (name__hip or name__ze): compile it with the program,
which is built with -DDAG_BACKEND_HIP or -DDAG_BACKEND_LEVEL_ZERO.

The kernel names come from the C preprocessor (cc -E -DDAG_KERNEL_NAMES);
for SPIR-V each must also be an entry point of the module.
"""
import argparse
import os
import struct
import subprocess
import sys


def kernel_names(kernels, cc, includes):
    cmd = [cc, "-E", "-P", "-DDAG_KERNEL_NAMES"] + ["-I" + d for d in includes] + [kernels]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        words = line.split()
        for i, w in enumerate(words[:-1]):
            if w == "dag_kernel_name":
                names.append(words[i + 1])
    return names


def spirv_entry_points(image):
    """The names of a SPIR-V module's OpEntryPoint instructions."""
    if len(image) < 20 or struct.unpack_from("<I", image, 0)[0] != 0x07230203:
        sys.exit("dag_embed: the image is not SPIR-V (no magic number)")
    words = struct.unpack_from("<%dI" % (len(image) // 4), image)
    names, i = set(), 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            sys.exit("dag_embed: malformed SPIR-V")
        if opcode == 15:  # OpEntryPoint: execution model, id, name
            raw = struct.pack("<%dI" % (count - 3), *words[i + 3:i + count])
            names.add(raw.split(b"\0", 1)[0].decode())
        i += count
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    kind = ap.add_mutually_exclusive_group(required=True)
    kind.add_argument("--hip", action="store_true", help="a hipcc --genco code object")
    kind.add_argument("--level-zero", action="store_true", help="a SPIR-V module")
    ap.add_argument("kernels", help="the file of DAG_KERNELs the image was made from")
    ap.add_argument("image")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="the C preprocessor to list kernels with")
    ap.add_argument("-I", dest="includes", action="append", default=[],
                    help="where dag.h and dag_kernels.h are (default: this tool's parent folder)")
    a = ap.parse_args()
    includes = a.includes or [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
    names = kernel_names(a.kernels, a.cc, includes)
    if not names:
        sys.exit("dag_embed: %s defines no DAG_KERNEL" % a.kernels)
    with open(a.image, "rb") as f:
        image = f.read()
    if a.level_zero:
        entries = spirv_entry_points(image)
        missing = [n for n in names if n not in entries]
        if missing:
            sys.exit("dag_embed: %s has no entry point for %s (was it made from %s?)"
                     % (a.image, ", ".join(missing), a.kernels))
        suffix, symbol = "__ze", "%s"
    else:
        if not image.startswith(b"__CLANG_OFFLOAD_BUNDLE__") and not image.startswith(b"\x7fELF"):
            sys.exit("dag_embed: %s is not a code object (hipcc --genco makes one)" % a.image)
        suffix, symbol = "__hip", "%s__gpu"
    lines = ["/* Made by tools/dag_embed.py from %s and %s: do not edit. */"
             % (os.path.basename(a.kernels), os.path.basename(a.image)),
             '#include "dag.h"', "",
             "static const unsigned char dag__image[%d] = {" % len(image)]
    for i in range(0, len(image), 16):
        lines.append("    " + ", ".join("%d" % b for b in image[i:i + 16]) + ",")
    lines.append("};")
    for n in names:
        lines.append('const dag_native_kernel %s%s = { "%s", 0, dag__image, sizeof dag__image };'
                     % (n, suffix, symbol % n))
    with open(a.output, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
