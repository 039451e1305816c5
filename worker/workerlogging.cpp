#include "workerlogging.h"

Q_LOGGING_CATEGORY(lcWorkerAgent, "ddl.worker.agent", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWorkerCache, "ddl.worker.cache", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWorkerRunner, "ddl.worker.runner", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWorkerProcess, "ddl.worker.process", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWorkerConfig, "ddl.worker.config", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWorkerSlurm, "ddl.worker.slurm", QtInfoMsg)
