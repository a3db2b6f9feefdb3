//! Option table: Job structure, ordering, processes, CPU placement and profiles.
//!
//! Source: fio `options.c` groups FIO_OPT_G_DESC, FIO_OPT_G_PROCESS, FIO_OPT_G_RUNTIME,
//! FIO_OPT_G_CRED, FIO_OPT_G_CGROUP, FIO_OPT_G_CLOCK; `init.c` for ordering, at fio f5344384.
//! Types, defaults and choices follow fio's table; the help texts are iolab's own, and each
//! entry carries iolab's status and the reason for it. Generated once from fio's tables and
//! then edited by hand; this file is the source of truth.

use super::Category::*;
use super::OptionType::*;
use super::Status::*;
use super::TimeUnit::*;
use super::{opt, OptionDef};
use crate::apply as a;

/// Why the options of fio's built-in profiles (registered globally by fio's `profile.c`
/// `add_profile_options`, so any job may set them) change nothing here.
const TIOBENCH: &str = "an option of fio's built-in tiobench profile (profiles/tiobench.c); \
                        fio accepts it in any job and it acts only under --profile=tiobench, \
                        which iolab lacks";
const ACT: &str = "an option of fio's built-in act profile (profiles/act.c); fio accepts it \
                   in any job and it acts only under --profile=act, which iolab lacks";

pub(super) const OPTIONS: &[OptionDef] = &[
    opt("name", Str, Description, Supported).set(a::set_name).help(
        "Name of the job; on the command line `--name` starts a new job.",
        "Shown in the report and used in generated file names (`$jobname`). A job with no \
            `name=` takes its section name. As in fio, `--name=x` on a command line begins a \
            new job, and options before the first `--name` act as global options.",
    ),
    opt("description", Str, Description, Supported).help(
        "Free text describing the job.",
        "Carried into the report (JSON `job options`) and otherwise has no effect, as in fio.",
    ),
    opt("include", Str, Description, Supported).help(
        "Merge another file's lines into the current section.",
        "Handled by the job reader, not an option table entry in fio: `include file.fio` is \
            recognised by any line starting with `include`. A relative path is tried against \
            the current directory, then against the directory of the including file, as fio \
            does. Included files may not open new `[sections]`; nesting is allowed.",
    ),
    opt("wait_for", Str, Description, Supported).set(a::set_wait_for).help(
        "Start this job only after the named job has finished.",
        "The named job must appear earlier (fio allows no forward references) and its name \
            must be unique. Unlike `stonewall` it does not start a new reporting group.",
    ),
    opt("stonewall", Bool, Description, Supported)
        .set(a::set_stonewall)
        .alias(&["wait_for_previous"])
        .help(
            "Wait for every earlier job to finish before starting, and start a new reporting \
            group.",
            "In fio the first job of every job file after the first gets an implicit stonewall, \
            so several job files run one after another; iolab does the same.",
        ),
    opt("new_group", Bool, Description, Supported).set(a::set_new_group).help(
        "Start a new reporting group here without waiting for earlier jobs.",
        "With `group_reporting`, jobs are summed per group; this splits groups while the \
            jobs still run concurrently.",
    ),
    opt(
        "comm",
        Str,
        Description,
        Ignored("a process title only; it changes nothing that is measured"),
    )
    .help(
        "Set the process name (comm) of the job's worker.",
        "fio renames the forked process so `ps`/`top` show it. iolab workers are threads of \
            one process and keep their name.",
    ),
    opt("numjobs", Int, Process, Supported).set(a::set_numjobs).def("1").min_val(1).help(
        "Run this many clones of the job in parallel.",
        "Each clone has its own offsets (different seed per clone), its own files unless \
            `filename` is given (then they share), and its own report line unless \
            `group_reporting` is set. Random hot sets differ per clone, exactly as in fio (each \
            clone's zipf/pareto scramble offset is different); see `hot_set` for a shared one.",
    ),
    opt("thread", Bool, Process, Supported).set(a::set_thread).help(
        "Run clones as threads instead of forked processes.",
        "iolab always runs workers as threads of one process, so this is accepted for \
            compatibility; measured I/O is unaffected (fio's process-vs-thread difference is in \
            memory sharing, not in the I/O issued).",
    ),
    opt("loops", Int, Process, Supported).set(a::set_loops).def("1").help(
        "Repeat the job's I/O pass this many times.",
        "Each loop re-runs the workload over the same region; statistics accumulate over all \
            loops.",
    ),
    opt("time_based", Bool, Process, Supported).set(a::set_time_based).help(
        "Keep running until `runtime` expires, wrapping around the region as needed.",
        "Without it `runtime` is only a cap: the job ends when its I/O is done or time runs \
            out, whichever comes first. fio invalidates the page cache on every wrap of a \
            buffered sequential job (and when a random map is exhausted) if `invalidate=1`; \
            iolab makes invalidation explicit instead and reports it.",
    ),
    opt("runtime", Time { unit: Sec }, Process, Supported)
        .set(a::set_runtime)
        .alias(&["timeout"])
        .def("0")
        .help(
            "Stop the job after this much time (seconds by default).",
            "A cap, not a target, unless `time_based` is set. Time suffixes `d h m s ms us` are \
            accepted; a bare number is seconds. Wall time is `ramp_time + runtime` plus \
            start-up and teardown.",
        ),
    opt("ramp_time", Time { unit: Sec }, Process, Supported).set(a::set_ramp_time).help(
        "Run this long before measurement starts (seconds by default).",
        "After the ramp fio zeroes all statistics and restarts the job clock, so logs start \
            at t=0 after the ramp; iolab does the same so logs line up with fio's. Total wall \
            time is ramp plus runtime.",
    ),
    opt(
        "ramp_size",
        Size,
        Process,
        Unsupported(
            "new in fio 3.42 and not implemented; use ramp_time, or a preceding fill \
                        job with stonewall",
        ),
    )
    .min_val(1)
    .help(
        "End the warm-up after this many bytes instead of a time.",
        "In fio it cannot be combined with `ramp_time` and sums across the group under \
            `group_reporting`.",
    ),
    opt("startdelay", Time { unit: Sec }, Process, Supported).set(a::set_startdelay).def("0").help(
        "Delay the job's start by this long (seconds by default).",
        "fio also accepts a range (`1-10`) and draws one delay per job from it.",
    ),
    opt("exitall", Bool, Process, Supported).help(
        "When one job finishes, stop the jobs of its `exit_what` scope.",
        "Useful to end background load when the foreground job completes.",
    ),
    opt("exit_what", Str, Process, Supported)
        .def("group")
        .choices(&["group", "stonewall", "all"])
        .help(
            "Which jobs `exitall` stops.",
            "`group` (default): the running jobs of the job's group; `stonewall`: every job \
            started since the last stonewall; `all`: those, and no later job starts.",
        ),
    opt(
        "exitall_on_error",
        Bool,
        Process,
        Unsupported("not implemented: iolab stops the failing job only; check the exit status"),
    )
    .help(
        "Stop all jobs when one fails.",
        "fio terminates every job when one job exits with an error.",
    ),
    opt("continue_on_error", Str, Process, Supported)
        .def("none")
        .choices(&["none", "read", "write", "io", "verify", "all", "0", "1"])
        .help(
            "Keep going after I/O errors of the given kinds: none, read, write, io, verify, all.",
            "As fio: `read`/`write`/`io` count errors of those directions (trims and syncs \
            count as writes) and go on; `all`/`1` also verify failures, `verify` only those \
            (iolab counts every verify failure and goes on unless `verify_fatal=1`). The \
            errors are counted in the result and the job's error is the first one.",
        ),
    opt(
        "ignore_error",
        Str,
        Process,
        Unsupported("not implemented: every I/O error is fatal to the job in iolab"),
    )
    .help(
        "List errno values that are not counted as errors.",
        "Only meaningful with `continue_on_error` in fio.",
    ),
    opt(
        "error_dump",
        Bool,
        Process,
        Ignored(
            "iolab reports the error that stopped the job in its result; there is no per-error \
            dump",
        ),
    )
    .def("0")
    .help(
        "Print details for every I/O error.",
        "fio's switch adds per-error messages; iolab stops at the first error and names it \
            fully.",
    ),
    opt("uid", Int, Process, Ignored("iolab runs as the invoking user; use sudo -u instead")).help(
        "Switch to this user ID before running the job.",
        "It changes permissions, not the I/O issued.",
    ),
    opt("gid", Int, Process, Ignored("iolab runs as the invoking group; use sudo -g instead"))
        .help(
            "Switch to this group ID before running the job.",
            "It changes permissions, not the I/O issued.",
        ),
    opt(
        "nice",
        Int,
        Cpu,
        Ignored("CPU scheduling priority is left as inherited; run iolab under nice(1) instead"),
    )
    .def("0")
    .min_val(-20)
    .max_val(19)
    .help("CPU nice value for the job.", "Only matters when the CPU is contended."),
    opt("prio", Int, Cpu, Supported).min_val(0).max_val(7).help(
        "I/O priority level (ioprio) within the class.",
        "fio calls ioprio_set for the job; the block scheduler (bfq, mq-deadline) may honour \
            it.",
    ),
    opt("prioclass", Int, Cpu, Supported)
        .min_val(0)
        .max_val(3)
        .help("I/O priority class (realtime, best-effort, idle).", "See `prio`."),
    opt("priohint", Int, Cpu, Ignored("iolab sets no I/O priority hints"))
        .min_val(0)
        .max_val(1023)
        .help(
            "I/O priority hint (kernel 6.10+).",
            "Used with command duration limits on some devices.",
        ),
    opt(
        "cpumask",
        Int,
        Cpu,
        Ignored("iolab does not pin workers; run it under taskset(1) instead"),
    )
    .help("CPU affinity mask for the job.", "Pinning changes CPU placement, not the I/O pattern."),
    opt(
        "cpus_allowed",
        Str,
        Cpu,
        Ignored("iolab does not pin workers; run it under taskset(1) instead"),
    )
    .help("CPUs the job may run on, as a list (`0-3,8`).", "See `cpumask`."),
    opt(
        "cpus_allowed_policy",
        Str,
        Cpu,
        Ignored("no pinning in iolab, so there is nothing to distribute"),
    )
    .prio(1)
    .choices(&["shared", "split"])
    .help(
        "Whether clones share `cpus_allowed` or split it one CPU each.",
        "Only meaningful together with `cpus_allowed`.",
    ),
    opt(
        "numa_cpu_nodes",
        Str,
        Cpu,
        Ignored("iolab does not bind NUMA nodes; run it under numactl(8) instead"),
    )
    .help("Bind the job to CPUs of these NUMA nodes.", "Needs libnuma in fio."),
    opt(
        "numa_mem_policy",
        Str,
        Cpu,
        Ignored("iolab does not set memory policy; run it under numactl(8) instead"),
    )
    .help("NUMA memory policy for the job's buffers.", "Needs libnuma in fio."),
    opt(
        "cgroup",
        Str,
        Cpu,
        Ignored("iolab does not create cgroups; start it under systemd-run or cgexec instead"),
    )
    .help("Place the job in this cgroup.", "fio creates the cgroup (v1 or v2) if needed."),
    opt(
        "cgroup_weight",
        Int,
        Cpu,
        Ignored("no cgroups are created by iolab; set the weight on the cgroup you run it in"),
    )
    .min_val(100)
    .max_val(1000)
    .help("Weight of the job's cgroup.", "Range 10-1000 in fio."),
    opt("cgroup_nodelete", Bool, Cpu, Ignored("no cgroups are created by iolab"))
        .def("0")
        .help("Keep the job's cgroup after the run.", "See `cgroup`."),
    opt("clocksource", Str, Cpu, Supported)
        .choices(&["gettimeofday", "clock_gettime", "cpu"])
        .help(
            "Clock used for timestamps: gettimeofday, clock_gettime or cpu (TSC).",
            "Default as fio's: `cpu` where the TSC is invariant and the kernel's own clocksource \
            is `tsc` (calibrated once against CLOCK_MONOTONIC), else `clock_gettime` \
            (CLOCK_MONOTONIC). `cpu` on a host without a usable TSC falls back to \
            `clock_gettime` with a note saying why.",
        ),
    opt(
        "gtod_cpu",
        Int,
        Cpu,
        Ignored("iolab reads the clock directly; there is no timekeeping thread"),
    )
    .help(
        "Dedicate a CPU to a thread that keeps the time of day.",
        "A fio overhead optimisation that does not change the I/O.",
    ),
    opt(
        "job_start_clock_id",
        Int,
        Cpu,
        Ignored("the clock for the report's job start time cannot be chosen in iolab"),
    )
    .help(
        "clock_gettime clock ID used for the job's start time in JSON.",
        "Affects only the `job_start` field of fio's JSON.",
    ),
    opt(
        "ioscheduler",
        Str,
        Cpu,
        Ignored(
            "iolab never changes system settings; write /sys/block/DEV/queue/scheduler yourself",
        ),
    )
    .help(
        "Switch the device's I/O scheduler before the job.",
        "fio writes the scheduler name into sysfs and fails if it cannot.",
    ),
    opt(
        "exec_prerun",
        Str,
        Cpu,
        Ignored("iolab runs no shell commands from job files; run the command before iolab"),
    )
    .help("Run a shell command before the job.", "fio runs it through system(3)."),
    opt(
        "exec_postrun",
        Str,
        Cpu,
        Ignored("iolab runs no shell commands from job files; run the command after iolab"),
    )
    .help("Run a shell command after the job.", "fio runs it through system(3)."),
    opt("gpu_dev_id", Int, Cpu, Unsupported("GPU buffers are not supported; drop the option"))
        .def("0")
        .help(
            "GPU device for GPUDirect RDMA buffers.",
            "Used with the rdma engine and CUDA builds in fio.",
        ),
    opt(
        "lockmem",
        Size,
        Cpu,
        Unsupported(
            "not implemented; limit memory with a cgroup (systemd-run -p \
                        MemoryMax=...) instead",
        ),
    )
    .def("0")
    .help(
        "Pin this much memory to shrink what is left for the page cache.",
        "fio mlocks the amount per worker to simulate a smaller machine, which changes \
            page-cache results, so iolab refuses it rather than measure something else.",
    ),
    opt(
        "profile",
        Str,
        Profile,
        Unsupported(
            "fio's built-in profiles are not provided; write the jobs out in a job \
                        file",
        ),
    )
    .help(
        "Run one of fio's built-in workload profiles (tiobench, act).",
        "A profile expands into a set of generated jobs in fio.",
    ),
    opt("block", Int, Profile, Ignored(TIOBENCH))
        .help("Tiobench block size.", "tiobench's block size in bytes."),
    opt("numruns", Int, Profile, Ignored(TIOBENCH))
        .help("Tiobench number of runs.", "How many times tiobench repeats its jobs."),
    opt("dir", Str, Profile, Ignored(TIOBENCH))
        .help("Tiobench directory.", "The directory tiobench's files go in."),
    opt("threads", Int, Profile, Ignored(TIOBENCH)).help(
        "Tiobench threads.",
        "How many threads each tiobench job runs (fio accepts threads=1 in any job).",
    ),
    opt("device-names", Str, Profile, Ignored(ACT))
        .help("ACT device names.", "The devices the ACT profile tests."),
    opt("load", Int, Profile, Ignored(ACT))
        .help("ACT load multiplier.", "The ACT profile's load multiplier."),
    opt("test-duration", Time { unit: Msec }, Profile, Ignored(ACT))
        .help("ACT test duration.", "How long the ACT profile runs."),
    opt("threads-per-queue", Int, Profile, Ignored(ACT))
        .help("ACT read threads per device.", "Read I/O threads per device in the ACT profile."),
    opt("read-req-num-512-blocks", Int, Profile, Ignored(ACT))
        .help("ACT read size in 512 B blocks.", "The ACT profile's read size."),
    opt("large-block-op-kbytes", Int, Profile, Ignored(ACT))
        .help("ACT large write size in KiB.", "The ACT profile's large block write size."),
    opt("prep", Bool, Profile, Ignored(ACT))
        .help("ACT prep phase.", "Run the ACT profile's preparation phase."),
    opt(
        "flow",
        Int,
        Profile,
        Unsupported(
            "flow control between jobs is not implemented; use rate or rate_iops per \
                        job",
        ),
    )
    .def("0")
    .max_val(1000)
    .help(
        "Weight of this job in flow control between jobs.",
        "fio's flow control keeps the ratio of I/O between jobs sharing a `flow_id` near \
            their weights.",
    ),
    opt("flow_id", Int, Profile, Unsupported("flow control between jobs is not implemented"))
        .def("0")
        .help("Flow-control group this job belongs to.", "See `flow`."),
    opt("flow_sleep", Int, Profile, Unsupported("flow control between jobs is not implemented"))
        .def("0")
        .help("Microseconds to sleep when held back by flow control.", "See `flow`."),
    opt("flow_watermark", Deprecated, Profile, Ignored("deprecated in fio, which ignores it too"))
        .help("Deprecated flow-control watermark.", "Kept so old job files parse."),
];
