#!/usr/bin/env python3
"""dag_embed.py: puts a kernels file's ahead-of-time GPU build into a C file.

    tools/dag_embed.py --hip        kernels.h kernels.hipfb -o kernels_hip.c
    tools/dag_embed.py --level-zero kernels.h kernels.bc    -o kernels_ze.c
    tools/dag_embed.py --level-zero kernels.h kernels.spv   -o kernels_ze.c
    tools/dag_embed.py --backend WORD kernels.h image       -o kernels_WORD.c

kernels.h holds DAG_KERNELs (see dag_kernels.h). The image is what hipcc
--genco made of it (a code object bundle), or for Level Zero the LLVM
bitcode clang -x cl -target spir64 made of it, or the SPIR-V llvm-spirv made
of that. The C file holds the images as bytes and, for each kernel, the
record the program looks for (name__hip or name__ze): compile it with the
program, which is built with -DDAG_BACKEND_HIP or -DDAG_BACKEND_LEVEL_ZERO.

--backend WORD is the same for any backend whose row in dag.h's backend
list has that word and takes kernels built ahead of time: the records are
name__WORD, each holding the whole image and the kernel's name as its
symbol. --hip is --backend hip, where a kernel's symbol is name__gpu (as
dag_kernels.h names it under hipcc) and the image must be a code object;
--level-zero is --backend ze, where the image must be SPIR-V or bitcode.

From bitcode, each kernel gets a SPIR-V module of its own (llvm-extract,
then llvm-spirv, then spirv-val where it exists), so that only the kernels
that use double declare Float64: a GPU without fp64 (Intel Arc, Xe-LP)
builds the others and runs those elsewhere. One SPIR-V module for all
declares Float64 as soon as one kernel uses double.

The kernel names come from the C preprocessor (cc -E -DDAG_KERNEL_NAMES);
for SPIR-V each must also be an entry point of the module.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile


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


def first_tool(names):
    for n in names:
        if shutil.which(n):
            return n
    return None


def spirv_per_kernel(bitcode, names, extract, translate, validate):
    """One SPIR-V module per kernel, made from the bitcode: name -> bytes."""
    images = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            bc, spv = os.path.join(tmp, n + ".bc"), os.path.join(tmp, n + ".spv")
            subprocess.run([extract, "--func=" + n, "--recursive", bitcode, "-o", bc], check=True)
            subprocess.run([translate, bc, "-o", spv], check=True)
            if validate:
                subprocess.run([validate, spv], check=True)
            with open(spv, "rb") as f:
                images[n] = f.read()
    return images


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    kind = ap.add_mutually_exclusive_group(required=True)
    kind.add_argument("--backend", metavar="WORD", help="the backend's word in dag.h's list: records name__WORD")
    kind.add_argument("--hip", dest="backend", action="store_const", const="hip", help="a hipcc --genco code object")
    kind.add_argument("--level-zero", dest="backend", action="store_const", const="ze",
                      help="a SPIR-V module, or LLVM bitcode made into one per kernel")
    ap.add_argument("kernels", help="the file of DAG_KERNELs the image was made from")
    ap.add_argument("image")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="the C preprocessor to list kernels with")
    ap.add_argument("--llvm-extract", default=None, help="for bitcode (default: llvm-extract-14, llvm-extract)")
    ap.add_argument("--llvm-spirv", default=None, help="for bitcode (default: llvm-spirv-14, llvm-spirv)")
    ap.add_argument("-I", dest="includes", action="append", default=[],
                    help="where dag.h and dag_kernels.h are (default: this tool's parent folder)")
    a = ap.parse_args()
    if not a.backend.isidentifier():
        sys.exit("dag_embed: --backend takes a word of dag.h's backend list (ze, hip), not %r" % a.backend)
    includes = a.includes or [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
    names = kernel_names(a.kernels, a.cc, includes)
    if not names:
        sys.exit("dag_embed: %s defines no DAG_KERNEL" % a.kernels)
    with open(a.image, "rb") as f:
        image = f.read()
    images = {n: image for n in names}   # kernel -> the image holding it
    symbol = "%s"   # a kernel's name in the image
    if a.backend == "ze" and image.startswith(b"BC\xc0\xde"):
        extract = a.llvm_extract or first_tool(["llvm-extract-14", "llvm-extract"])
        translate = a.llvm_spirv or first_tool(["llvm-spirv-14", "llvm-spirv"])
        if not extract or not translate:
            sys.exit("dag_embed: LLVM bitcode needs llvm-extract and llvm-spirv (apt-get install llvm-14 llvm-spirv-14)")
        images = spirv_per_kernel(a.image, names, extract, translate, first_tool(["spirv-val"]))
    if a.backend == "ze":
        for n in names:
            if n not in spirv_entry_points(images[n]):
                sys.exit("dag_embed: %s has no entry point for %s (was it made from %s?)" % (a.image, n, a.kernels))
    elif a.backend == "hip":
        if not image.startswith(b"__CLANG_OFFLOAD_BUNDLE__") and not image.startswith(b"\x7fELF"):
            sys.exit("dag_embed: %s is not a code object (hipcc --genco makes one)" % a.image)
        symbol = "%s__gpu"
    suffix = "__" + a.backend
    lines = ["/* Made by tools/dag_embed.py from %s and %s: do not edit. */"
             % (os.path.basename(a.kernels), os.path.basename(a.image)),
             '#include "dag.h"', ""]
    arrays = {}   # id of an image -> its array's name
    for n in names:
        if id(images[n]) in arrays:
            continue
        arrays[id(images[n])] = "dag__image_%d" % len(arrays)
        lines.append("static const unsigned char %s[%d] = {" % (arrays[id(images[n])], len(images[n])))
        for i in range(0, len(images[n]), 16):
            lines.append("    " + ", ".join("%d" % b for b in images[n][i:i + 16]) + ",")
        lines.append("};")
    for n in names:
        lines.append('const dag_native_kernel %s%s = { "%s", 0, %s, sizeof %s };'
                     % (n, suffix, symbol % n, arrays[id(images[n])], arrays[id(images[n])]))
    with open(a.output, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
