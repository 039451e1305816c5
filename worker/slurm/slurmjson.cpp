#include "slurmjson.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

Result<QJsonObject> readAnswer(const QByteArray &json, const char *command, const char *array)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject()) {
        return Error::make(ErrorCode::BadAnswer,
                           u"%1 --json did not answer JSON (%2); is Slurm's openapi plugin "
                           u"installed (Debian: slurm-wlm, slurm-client)?"_s.arg(
                               QLatin1StringView(command), parseError.errorString()));
    }
    const QJsonObject root = document.object();
    if (!root.value(QLatin1StringView(array)).isArray()) {
        const QJsonObject meta = root.value(u"meta"_s).toObject();
        const QString plugin = meta.value(u"plugin"_s).toObject().value(u"type"_s).toString();
        const QString release = meta.value(u"Slurm"_s).toObject().value(u"release"_s).toString();
        return Error::make(ErrorCode::BadAnswer,
                           u"%1 --json answered without \"%2\" (Slurm %3, %4); this worker reads "
                           u"the layout of Slurm 22.05 and later"_s.arg(
                               QLatin1StringView(command),
                               QLatin1StringView(array),
                               release.isEmpty() ? u"release unknown"_s : release,
                               plugin.isEmpty() ? u"plugin unknown"_s : plugin));
    }
    return root;
}

// 22.05 spells a state as a string, 23.02 and later as an array of strings (base state first).
QStringList stateWords(const QJsonValue &value)
{
    QStringList words;
    if (value.isString())
        words = value.toString().split(u'+', Qt::SkipEmptyParts);
    for (const QJsonValue &word : value.toArray())
        words << word.toString();
    for (QString &word : words)
        word = word.toUpper();
    return words;
}

// A number in 22.05; {"set": true, "number": N} or {"return_code": {...}} later.
std::optional<int> numberOf(const QJsonValue &value)
{
    if (value.isDouble())
        return value.toInt();
    const QJsonObject object = value.toObject();
    if (object.contains(u"return_code"_s))
        return numberOf(object.value(u"return_code"_s));
    if (object.value(u"set"_s).toBool() && object.value(u"number"_s).isDouble())
        return object.value(u"number"_s).toInt();
    return std::nullopt;
}

int gpusOfGres(const QString &gres)
{
    static const QRegularExpression count(u"^gpu(?::[^:(,]*)*?:(\\d+)"_s);
    int gpus = 0;
    // "gpu:a100:4(S:0-1),shard:8": commas outside parentheses part the entries.
    static const QRegularExpression entry(u",(?![^(]*\\))"_s);
    for (const QString &item : gres.split(entry, Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch match = count.match(item.trimmed());
        if (match.hasMatch())
            gpus += match.captured(1).toInt();
    }
    return gpus;
}

} // namespace

bool SlurmJobStatus::isFinal() const
{
    static const QStringList alive{u"PENDING"_s,
                                   u"RUNNING"_s,
                                   u"CONFIGURING"_s,
                                   u"COMPLETING"_s,
                                   u"SUSPENDED"_s,
                                   u"REQUEUED"_s,
                                   u"RESIZING"_s,
                                   u"SIGNALING"_s,
                                   u"STAGE_OUT"_s};
    return !alive.contains(state);
}

Result<SlurmCapacity> parseSinfoJson(const QByteArray &json, const QString &partition)
{
    Result<QJsonObject> root = readAnswer(json, "sinfo", "nodes");
    if (!root)
        return root.error();
    SlurmCapacity capacity;
    for (const QJsonValue &value : root->value(u"nodes"_s).toArray()) {
        const QJsonObject node = value.toObject();
        QStringList partitions;
        for (const QJsonValue &name : node.value(u"partitions"_s).toArray())
            partitions << name.toString();
        if (!partition.isEmpty() && !partitions.contains(partition))
            continue;
        const QStringList state =
            stateWords(node.value(u"state"_s)) + stateWords(node.value(u"state_flags"_s));
        if (state.contains(u"DOWN"_s) || state.contains(u"DRAIN"_s) ||
            state.contains(u"DRAINED"_s) || state.contains(u"FUTURE"_s) ||
            state.contains(u"INVAL"_s))
            continue;
        const int cpus = node.value(u"cpus"_s).toInt();
        ++capacity.nodes;
        capacity.cpus += cpus;
        capacity.largestNodeCpus = std::max(capacity.largestNodeCpus, cpus);
        capacity.memoryMb += node.value(u"real_memory"_s).toInteger();
        capacity.gpus += gpusOfGres(node.value(u"gres"_s).toString());
    }
    if (capacity.nodes == 0) {
        return Error::make(
            ErrorCode::InvalidConfig,
            u"Slurm has no usable node in partition '%1' (sinfo lists none that is "
            u"up and not drained); check --partition and `sinfo -p %1`"_s.arg(partition));
    }
    return capacity;
}

Result<QList<SlurmJobStatus>> parseSqueueJson(const QByteArray &json)
{
    Result<QJsonObject> root = readAnswer(json, "squeue", "jobs");
    if (!root)
        return root.error();
    QList<SlurmJobStatus> jobs;
    for (const QJsonValue &value : root->value(u"jobs"_s).toArray()) {
        const QJsonObject job = value.toObject();
        SlurmJobStatus status;
        status.jobId = job.value(u"job_id"_s).toInteger();
        const QStringList state = stateWords(job.value(u"job_state"_s));
        status.state = state.value(0);
        status.reason = job.value(u"state_reason"_s).toString();
        status.nodes = job.value(u"nodes"_s).toString();
        status.exitCode = numberOf(job.value(u"exit_code"_s));
        jobs.append(status);
    }
    return jobs;
}

Result<qint64> parseSbatchParsable(const QByteArray &output)
{
    const QString text = QString::fromUtf8(output).trimmed();
    bool ok = false;
    const qint64 id = text.section(u';', 0, 0).toLongLong(&ok);
    if (!ok || id <= 0) {
        return Error::make(ErrorCode::BadAnswer,
                           u"sbatch --parsable answered '%1', not a job id"_s.arg(text.left(200)));
    }
    return id;
}

QString describeSlurmReason(const QString &reason)
{
    static const QHash<QString, QString> meanings{
        {u"Resources"_s, u"waiting for resources to become free"_s},
        {u"Priority"_s, u"jobs of higher priority are ahead in the queue"_s},
        {u"Dependency"_s, u"waiting for another job"_s},
        {u"QOSMaxJobsPerUserLimit"_s, u"the QOS limit of running jobs per user is reached"_s},
        {u"AssocMaxJobsLimit"_s, u"the account's limit of running jobs is reached"_s},
        {u"ReqNodeNotAvail"_s, u"a node the job needs is not available"_s},
        {u"PartitionDown"_s, u"the partition is down"_s},
        {u"JobHeldUser"_s, u"held by its user"_s},
        {u"JobHeldAdmin"_s, u"held by an administrator"_s},
        {u"BeginTime"_s, u"its start time has not come"_s},
    };
    const QString meaning = meanings.value(reason.section(u',', 0, 0));
    return meaning.isEmpty() ? reason : u"%1 (%2)"_s.arg(reason, meaning);
}

} // namespace ddl::worker
