#pragma once

#include <QLoggingCategory>

// One logging category per subsystem of the worker; enable details with
// QT_LOGGING_RULES="ddl.worker.*.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcWorkerAgent)   // ddl.worker.agent: enrollment, heartbeat, leases
Q_DECLARE_LOGGING_CATEGORY(lcWorkerCache)   // ddl.worker.cache: blobs and datasets
Q_DECLARE_LOGGING_CATEGORY(lcWorkerRunner)  // ddl.worker.runner: tasks, venvs, logs, artifacts
Q_DECLARE_LOGGING_CATEGORY(lcWorkerProcess) // ddl.worker.process: process trees and signals
Q_DECLARE_LOGGING_CATEGORY(lcWorkerConfig)  // ddl.worker.config: worker.yaml and flags
Q_DECLARE_LOGGING_CATEGORY(lcWorkerSlurm)   // ddl.worker.slurm: sbatch, squeue, scancel
