// The seccomp programs of the sandbox profiles, built with libseccomp. Every
// entry is denied with an errno, never by killing: CUDA's own threads make
// some of these calls, and SCMP_ACT_KILL/TRAP kills CUDA (seen on the H100
// machine). The reasons are in process/seccomp_policy.md.
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "process/sandbox.h"

namespace sg {
namespace {

// Calls denied in every profile: reaching into other processes, the kernel's
// shared state, or out of the sandbox's namespaces.
const char* const kDeniedEverywhere[] = {
    "ptrace", "process_vm_readv", "process_vm_writev",                        // other processes' memory
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",   // the filesystem view
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "unshare", "setns",                                                       // new or other namespaces
    "keyctl", "add_key", "request_key",                                       // kernel keyrings
    "bpf", "perf_event_open", "userfaultfd",                                  // kernel attack surface
    "io_uring_setup", "io_uring_enter", "io_uring_register",                 // bypasses seccomp per operation
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "quotactl",
};

class Filter {
 public:
  Filter() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {}
  ~Filter() {
    if (ctx_) seccomp_release(ctx_);
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  bool ok() const { return ctx_ != nullptr && error_.empty(); }
  const std::string& error() const { return error_; }
  scmp_filter_ctx get() const { return ctx_; }

  // Denies `name` with `err`, when all `conds` hold. A call this kernel's
  // headers do not know is skipped (nothing can make it).
  void deny(const char* name, int err, std::initializer_list<scmp_arg_cmp> conds = {}) {
    if (!ctx_) return;
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;
    const int rc = seccomp_rule_add_array(ctx_, SCMP_ACT_ERRNO(static_cast<unsigned>(err)), nr,
                                          static_cast<unsigned>(conds.size()), conds.begin());
    if (rc != 0 && error_.empty()) error_ = std::string("seccomp rule for ") + name + ": " + std::strerror(-rc);
  }

 private:
  scmp_filter_ctx ctx_;
  std::string error_;
};

}  // namespace

int seccomp_program_fd(SandboxProfile profile, std::string& error) {
  Filter f;
  if (!f.get()) {
    error = "seccomp_init failed";
    return -1;
  }
  for (const char* name : kDeniedEverywhere) f.deny(name, EPERM);
  // Device nodes: no character or block devices; FIFOs stay allowed
  // (compute-sanitizer makes one in /tmp).
  for (const unsigned type : {unsigned(S_IFCHR), unsigned(S_IFBLK)}) {
    f.deny("mknod", EPERM, {SCMP_A1(SCMP_CMP_MASKED_EQ, S_IFMT, type)});
    f.deny("mknodat", EPERM, {SCMP_A2(SCMP_CMP_MASKED_EQ, S_IFMT, type)});
  }
  // Turning address-space randomisation off. One comparison per argument is
  // all libseccomp allows: "bit set, top bit clear" spares the query
  // personality(0xffffffff).
  f.deny("personality", EPERM, {SCMP_A0(SCMP_CMP_MASKED_EQ, 0x80000000u | ADDR_NO_RANDOMIZE, ADDR_NO_RANDOMIZE)});
  if (profile == SandboxProfile::Run) {
    // No new processes; threads stay (CUDA starts some). clone3 cannot be
    // judged by its flags (they are in memory): ENOSYS makes glibc fall back
    // to clone, which the rule below judges.
    f.deny("fork", EPERM);
    f.deny("vfork", EPERM);
    f.deny("clone", EPERM, {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)});
    f.deny("clone3", ENOSYS);
    // Local (AF_UNIX) sockets stay: CUDA's driver opens one during cuInit and
    // fails with CUDA_ERROR_OPERATING_SYSTEM without it (seen on the H100
    // machine). The sandbox has an empty network namespace (abstract sockets
    // are per namespace) and no /run, so there is nobody to connect to.
    f.deny("socket", EPERM, {SCMP_A0(SCMP_CMP_NE, AF_UNIX)});
  }
  if (!f.ok()) {
    error = f.error();
    return -1;
  }
  const int fd = memfd_create("sg-seccomp", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create for the seccomp program: ") + std::strerror(errno);
    return -1;
  }
  const int rc = seccomp_export_bpf(f.get(), fd);
  if (rc != 0 || lseek(fd, 0, SEEK_SET) != 0) {
    error = std::string("seccomp_export_bpf: ") + std::strerror(rc ? -rc : errno);
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace sg
