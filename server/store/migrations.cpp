#include "migrations.h"

namespace ddl::server {

const std::vector<QStringList> &schemaMigrations()
{
    static const std::vector<QStringList> migrations = {
        // 1: users, sessions, workers, blobs, jobs, tasks, artifacts.
        {
            QStringLiteral("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE "
                           "COLLATE NOCASE, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE sessions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL "
                           "REFERENCES users(id), access_hash TEXT NOT NULL UNIQUE, access_expires "
                           "INTEGER NOT NULL, refresh_hash TEXT NOT NULL UNIQUE, refresh_expires "
                           "INTEGER NOT NULL, created_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE enroll_tokens (id INTEGER PRIMARY KEY, token_hash TEXT NOT "
                           "NULL UNIQUE, created_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE workers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                           "hostname TEXT NOT NULL, address TEXT NOT NULL, token_hash TEXT NOT NULL "
                           "UNIQUE, cpus INTEGER NOT NULL, memory_mb INTEGER NOT NULL, gpus INTEGER "
                           "NOT NULL, slots INTEGER NOT NULL, state TEXT NOT NULL, last_seen INTEGER "
                           "NOT NULL, created_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE uploads (id TEXT PRIMARY KEY, owner TEXT NOT NULL, sha256 "
                           "TEXT NOT NULL, size INTEGER NOT NULL, offset INTEGER NOT NULL, "
                           "updated_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE INDEX uploads_owner ON uploads (owner, sha256)"),
            QStringLiteral("CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                           "created_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE blob_refs (owner TEXT NOT NULL, sha256 TEXT NOT NULL "
                           "REFERENCES blobs(sha256), PRIMARY KEY (owner, sha256))"),
            QStringLiteral("CREATE TABLE jobs (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, "
                           "user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, kind "
                           "TEXT NOT NULL, state TEXT NOT NULL, spec TEXT NOT NULL, package_sha256 "
                           "TEXT NOT NULL, commit_id TEXT NOT NULL, dataset_sha256 TEXT, attempt "
                           "INTEGER NOT NULL, retry_count INTEGER NOT NULL, reason TEXT NOT NULL "
                           "DEFAULT '', created_at INTEGER NOT NULL, started_at INTEGER NOT NULL "
                           "DEFAULT 0, finished_at INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE INDEX jobs_user ON jobs (user_id, id)"),
            QStringLiteral("CREATE INDEX jobs_state ON jobs (state)"),
            QStringLiteral("CREATE TABLE tasks (id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL "
                           "REFERENCES jobs(id), attempt INTEGER NOT NULL, task_index INTEGER NOT "
                           "NULL, role TEXT NOT NULL, role_index INTEGER NOT NULL, state TEXT NOT "
                           "NULL, exit_code INTEGER, worker_id INTEGER, port INTEGER NOT NULL "
                           "DEFAULT 0, cancel_requested INTEGER NOT NULL DEFAULT 0, leased_at "
                           "INTEGER NOT NULL DEFAULT 0, started_at INTEGER NOT NULL DEFAULT 0, "
                           "finished_at INTEGER NOT NULL DEFAULT 0, message TEXT NOT NULL DEFAULT '')"),
            QStringLiteral("CREATE INDEX tasks_job ON tasks (job_id, attempt)"),
            QStringLiteral("CREATE INDEX tasks_state ON tasks (state, worker_id)"),
            QStringLiteral("CREATE TABLE artifacts (job_id INTEGER NOT NULL REFERENCES jobs(id), "
                           "path TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL "
                           "REFERENCES blobs(sha256), PRIMARY KEY (job_id, path))"),
        },
        // 2: the scheduler places whole jobs: GPUs by index, delivery of leases, per-user
        // limits set by the admin, job priority.
        {
            QStringLiteral("ALTER TABLE tasks ADD COLUMN gpu_indices TEXT NOT NULL DEFAULT ''"),
            QStringLiteral("ALTER TABLE tasks ADD COLUMN delivered INTEGER NOT NULL DEFAULT 1"),
            QStringLiteral("ALTER TABLE users ADD COLUMN max_gpus INTEGER"),
            QStringLiteral("ALTER TABLE users ADD COLUMN max_running_jobs INTEGER"),
            QStringLiteral("ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("CREATE INDEX tasks_worker ON tasks (worker_id, state, delivered)"),
        },
        // 3: resumable hashing of uploads; datasets as manifests of blobs.
        {
            QStringLiteral("ALTER TABLE uploads ADD COLUMN hash_state BLOB"),
            QStringLiteral("CREATE TABLE datasets (owner_id INTEGER NOT NULL REFERENCES users(id), "
                           "name TEXT NOT NULL, manifest_sha256 TEXT NOT NULL, file_count INTEGER "
                           "NOT NULL, total_size INTEGER NOT NULL, created_at INTEGER NOT NULL, "
                           "PRIMARY KEY (owner_id, name))"),
            QStringLiteral("ALTER TABLE jobs ADD COLUMN dataset_manifest TEXT"),
            QStringLiteral(
                "CREATE TABLE manifest_files (manifest_sha256 TEXT NOT NULL, sha256 TEXT "
                "NOT NULL, PRIMARY KEY (manifest_sha256, sha256))"),
        },
        // 4: a worker's GPU type (--gpu-type, else its GPUs' model), matched by OpenPAI's gpuType.
        {
            QStringLiteral("ALTER TABLE workers ADD COLUMN gpu_type TEXT NOT NULL DEFAULT ''"),
        },
        // 5: how a worker runs tasks ("bubblewrap,podman"), so that a job with a ddl:// image
        // goes only to a worker that runs containers. '' for a worker that has not said yet.
        {
            QStringLiteral("ALTER TABLE workers ADD COLUMN runtimes TEXT NOT NULL DEFAULT ''"),
        },
        // 6: images pushed to DDL (ddl://NAME): a user's named OCI layouts, each a dataset
        // manifest of blobs; a job records the manifest of its image for its workers to fetch.
        {
            QStringLiteral("CREATE TABLE images (owner_id INTEGER NOT NULL REFERENCES users(id), "
                           "name TEXT NOT NULL, manifest_sha256 TEXT NOT NULL, digest TEXT NOT "
                           "NULL, total_size INTEGER NOT NULL, created_at INTEGER NOT NULL, "
                           "PRIMARY KEY (owner_id, name))"),
            QStringLiteral("ALTER TABLE jobs ADD COLUMN image_manifest TEXT"),
        },
        // 7: what a task's worker tells of its preparation ("loading image ... (N MiB)"), shown
        // among the job's events.
        {
            QStringLiteral("CREATE TABLE job_events (id INTEGER PRIMARY KEY, job_id INTEGER NOT "
                           "NULL REFERENCES jobs(id), task_id INTEGER NOT NULL, at INTEGER NOT "
                           "NULL, message TEXT NOT NULL)"),
            QStringLiteral("CREATE INDEX job_events_job ON job_events (job_id, id)"),
        },
        // 8: utilisation samples (CPU, memory, GPUs) of tasks and of workers' machines, for the
        // graphs; bounded per series by UtilisationService. gpus is a JSON list, [] for none.
        {
            QStringLiteral("CREATE TABLE task_samples (task_id INTEGER NOT NULL, at INTEGER NOT "
                           "NULL, cpu_percent REAL NOT NULL, memory_bytes INTEGER NOT NULL, gpus "
                           "TEXT NOT NULL, PRIMARY KEY (task_id, at))"),
            QStringLiteral("CREATE TABLE worker_samples (worker_id INTEGER NOT NULL, at INTEGER "
                           "NOT NULL, cpu_percent REAL NOT NULL, memory_bytes INTEGER NOT NULL, "
                           "gpus TEXT NOT NULL, PRIMARY KEY (worker_id, at))"),
            QStringLiteral("CREATE INDEX worker_samples_at ON worker_samples (at)"),
        },
        // 9: attempts a worker's owner preempted (docs/owners.md): they spend no retry.
        {
            QStringLiteral("ALTER TABLE jobs ADD COLUMN preemptions INTEGER NOT NULL DEFAULT 0"),
        },
        // 10: the contribution ledger (docs/owners.md): who owns a worker (the user named when
        // its enrollment token was made), and what each worker gave, written as it happens: one
        // row per task attempt that ended on it (the task id makes a resent end count once),
        // and the bytes it moved, summed per hour.
        {
            QStringLiteral("ALTER TABLE enroll_tokens ADD COLUMN owner_id INTEGER"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN owner_id INTEGER"),
            QStringLiteral("CREATE INDEX workers_owner ON workers (owner_id)"),
            QStringLiteral("CREATE TABLE ledger_tasks (task_id INTEGER NOT NULL, worker_id "
                           "INTEGER NOT NULL, job_id INTEGER NOT NULL, ended_at INTEGER NOT NULL, "
                           "outcome TEXT NOT NULL, gpus INTEGER NOT NULL, cpus INTEGER NOT NULL, "
                           "wall_ms INTEGER NOT NULL, cpu_ms INTEGER NOT NULL, PRIMARY KEY "
                           "(task_id))"),
            QStringLiteral("CREATE INDEX ledger_tasks_worker ON ledger_tasks (worker_id, ended_at)"),
            QStringLiteral("CREATE TABLE ledger_bytes (worker_id INTEGER NOT NULL, hour INTEGER "
                           "NOT NULL, downloaded INTEGER NOT NULL, uploaded INTEGER NOT NULL, "
                           "PRIMARY KEY (worker_id, hour))"),
        },
        // 11: the latest complete checkpoint of each task of a job (docs/checkpoints.md): a dataset
        // manifest of blobs the task's worker uploaded, handed to the task's next attempt.
        {
            QStringLiteral("CREATE TABLE checkpoints (job_id INTEGER NOT NULL REFERENCES jobs(id), "
                           "role TEXT NOT NULL, role_index INTEGER NOT NULL, attempt INTEGER NOT "
                           "NULL, task_id INTEGER NOT NULL, manifest_sha256 TEXT NOT NULL, files "
                           "INTEGER NOT NULL, size INTEGER NOT NULL, created_at INTEGER NOT NULL, "
                           "PRIMARY KEY (job_id, role, role_index))"),
        },
        // 12: each worker's trust (docs/trust.md): what its score is computed from, and its
        // quarantine (by the admin, or after a failed canary); canary jobs (owned by the system
        // user) name the worker they check, the digest their output must have and the verdict.
        {
            QStringLiteral("ALTER TABLE workers ADD COLUMN uptime_ms INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN heartbeat_losses INTEGER NOT NULL "
                           "DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN tasks_ended INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN tasks_failed_by_worker INTEGER NOT NULL "
                           "DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN canaries_passed INTEGER NOT NULL "
                           "DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN canaries_failed INTEGER NOT NULL "
                           "DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN verified INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN quarantine_reason TEXT NOT NULL "
                           "DEFAULT ''"),
            QStringLiteral("ALTER TABLE workers ADD COLUMN next_canary_at INTEGER NOT NULL "
                           "DEFAULT 0"),
            QStringLiteral("ALTER TABLE jobs ADD COLUMN canary_worker_id INTEGER"),
            QStringLiteral("ALTER TABLE jobs ADD COLUMN canary_answer TEXT"),
            QStringLiteral("ALTER TABLE jobs ADD COLUMN canary_verdict TEXT"),
            QStringLiteral("CREATE INDEX jobs_canary_pending ON jobs (canary_worker_id) WHERE "
                           "canary_worker_id IS NOT NULL AND canary_verdict IS NULL"),
        },
        // 13: the small blobs of a batch lie in one pack file (DATA/packs/<uuid>.pack), each at
        // its offset there; NULL for a blob in a file of its own.
        {
            QStringLiteral("ALTER TABLE blobs ADD COLUMN pack TEXT"),
            QStringLiteral("ALTER TABLE blobs ADD COLUMN pack_offset INTEGER"),
            // The start's sweep asks, of each old pack, whether any blob lies in it.
            QStringLiteral("CREATE INDEX blobs_pack ON blobs (pack) WHERE pack IS NOT NULL"),
        },
    };
    return migrations;
}

} // namespace ddl::server
