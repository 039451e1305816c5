#include "jobspecvalidator.h"

#include <QHash>
#include <QSet>

#include <algorithm>

namespace ddl {

namespace {

bool isAsciiAlnum(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}

bool matchesCharset(const QString &text, QStringView extra)
{
    if (text.isEmpty())
        return false;
    for (const QChar c : text) {
        if (!isAsciiAlnum(c) && !extra.contains(c))
            return false;
    }
    return true;
}

QString quoted(const QString &text)
{
    return u'"' + text + u'"';
}

// Collects errors, leaving out the fields (and children of fields) the caller skips.
class Checker
{
public:
    explicit Checker(const QSet<QString> &skip)
        : m_skip(skip)
    {
    }

    bool skipped(const QString &path) const
    {
        if (m_skip.isEmpty())
            return false;
        QString current = path;
        while (!current.isEmpty()) {
            if (m_skip.contains(current))
                return true;
            const qsizetype cut = std::max(current.lastIndexOf(u'.'), current.lastIndexOf(u'['));
            if (cut <= 0)
                break;
            current.truncate(cut);
        }
        return false;
    }

    void add(const QString &path, const QString &message)
    {
        if (!skipped(path))
            m_errors.append(SpecError{path, message});
    }

    void atLeast(const QString &path, int value, int minimum)
    {
        if (value < minimum)
            add(path, QStringLiteral("must be >= %1, got %2").arg(minimum).arg(value));
    }

    void notEmpty(const QString &path, const QString &value)
    {
        if (value.isEmpty())
            add(path, QStringLiteral("must not be empty"));
    }

    QList<SpecError> errors() const { return m_errors; }

private:
    const QSet<QString> &m_skip;
    QList<SpecError> m_errors;
};

// shmMB, portList and the completion policy of one task role.
void checkOpenPaiRoleFields(Checker &check, const TaskRole &role, const QString &prefix)
{
    const QString shmPath = prefix + QLatin1String("shmMB");
    check.atLeast(shmPath, role.shmMB, 0);
    if (role.shmMB > role.memoryMB && role.memoryMB >= JobSpecValidator::MinMemoryMB)
        check.add(shmPath,
                  QStringLiteral("must be <= memoryMB (%1), got %2; /dev/shm counts against the "
                                 "task's memory")
                      .arg(role.memoryMB)
                      .arg(role.shmMB));

    QSet<QString> labels;
    qint64 ports = 0;
    for (qsizetype j = 0; j < role.portList.size(); ++j) {
        const PortRequest &port = role.portList.at(j);
        const QString portPrefix = prefix + QStringLiteral("portList[%1].").arg(j);
        const QString labelPath = portPrefix + QLatin1String("label");
        if (!JobSpecValidator::isValidPortLabel(port.label))
            check.add(labelPath,
                      QStringLiteral("must match [A-Za-z0-9._~]+, got %1").arg(quoted(port.label)));
        else if (labels.contains(port.label))
            check.add(labelPath,
                      QStringLiteral("duplicate label %1 in this task role; give each port type "
                                     "one entry with the portNumber it needs")
                          .arg(quoted(port.label)));
        labels.insert(port.label);
        check.atLeast(portPrefix + QLatin1String("beginAt"), port.beginAt, 0);
        if (port.beginAt > 65535)
            check.add(portPrefix + QLatin1String("beginAt"),
                      QStringLiteral("must be a port number <= 65535, got %1").arg(port.beginAt));
        check.atLeast(portPrefix + QLatin1String("portNumber"), port.portNumber, 0);
        ports += std::max(0, port.portNumber);
    }
    if (ports > JobSpecValidator::MaxPortsPerTask)
        check.add(prefix + QLatin1String("portList"),
                  QStringLiteral("asks for %1 ports per task; at most %2 can be booked")
                      .arg(ports)
                      .arg(JobSpecValidator::MaxPortsPerTask));

    const std::pair<const char *, const std::optional<int> *> counts[] = {
        {"minFailedTaskCount", &role.minFailedTaskCount},
        {"minSucceededTaskCount", &role.minSucceededTaskCount}};
    for (const auto &[name, count] : counts) {
        if (!count->has_value())
            continue;
        const QString path = prefix + QLatin1String(name);
        if (**count < 1)
            check.add(path, QStringLiteral("must be null or >= 1, got %1").arg(**count));
        else if (role.taskNumber >= 1 && **count > role.taskNumber)
            check.add(path,
                      QStringLiteral("must be <= taskNumber (%1), got %2; it could never be "
                                     "reached")
                          .arg(role.taskNumber)
                          .arg(**count));
    }
}

bool isEnvironmentName(const QString &name)
{
    if (name.isEmpty() || (name.front() >= u'0' && name.front() <= u'9'))
        return false;
    return matchesCharset(name, u"_");
}

void checkJobEnvs(Checker &check, const QJsonObject &envs)
{
    if (envs.size() > JobSpecValidator::MaxJobEnvs)
        check.add(QStringLiteral("jobEnvs"),
                  QStringLiteral("has %1 entries; at most %2 are allowed")
                      .arg(envs.size())
                      .arg(JobSpecValidator::MaxJobEnvs));
    for (auto it = envs.begin(); it != envs.end(); ++it) {
        const QString path = QLatin1String("jobEnvs.") + it.key();
        if (!isEnvironmentName(it.key()))
            check.add(path,
                      QStringLiteral("is not an environment variable name: use letters, digits "
                                     "and _, not starting with a digit"));
        else if (it.value().isString() &&
                 it.value().toString().size() > JobSpecValidator::MaxJobEnvValueLength)
            check.add(path,
                      QStringLiteral("is longer than %1 characters; pass large values in a file")
                          .arg(JobSpecValidator::MaxJobEnvValueLength));
    }
}

} // namespace

bool JobSpecValidator::isValidPortLabel(const QString &label)
{
    return matchesCharset(label, u"._~");
}

bool JobSpecValidator::isValidJobName(const QString &name)
{
    return matchesCharset(name, u"._~-");
}

bool JobSpecValidator::isValidRoleName(const QString &name)
{
    return matchesCharset(name, u"_-");
}

QList<SpecError> JobSpecValidator::validate(const JobSpec &spec, const QSet<QString> &skip)
{
    Checker check(skip);
    const bool openPai = spec.kind == JobSpec::Kind::OpenPai;

    const QString jobName = QStringLiteral("jobName");
    if (spec.jobName.isEmpty())
        check.add(jobName, QStringLiteral("must not be empty"));
    else if (!isValidJobName(spec.jobName))
        check.add(jobName,
                  QStringLiteral("must match [A-Za-z0-9._~-]+, got %1").arg(quoted(spec.jobName)));

    if (openPai)
        check.notEmpty(QStringLiteral("image"), spec.image);

    const QString rolesPath = QStringLiteral("taskRoles");
    if (spec.taskRoles.isEmpty())
        check.add(rolesPath, QStringLiteral("must contain at least one task role"));

    QHash<QString, qsizetype> firstIndexOfName;
    bool taskNumbersValid = true;
    for (qsizetype i = 0; i < spec.taskRoles.size(); ++i) {
        const TaskRole &role = spec.taskRoles.at(i);
        const QString prefix = rolesPath + u'[' + QString::number(i) + QLatin1String("].");
        const QString namePath = prefix + QLatin1String("name");

        if (role.name.isEmpty()) {
            check.add(namePath, QStringLiteral("must not be empty"));
        } else if (!isValidRoleName(role.name)) {
            check.add(namePath,
                      QStringLiteral("must match [A-Za-z0-9_-]+, got %1").arg(quoted(role.name)));
        } else if (!check.skipped(namePath)) {
            const auto found = firstIndexOfName.constFind(role.name);
            if (found != firstIndexOfName.cend())
                check.add(namePath,
                          QStringLiteral("duplicate task role name %1, already used by "
                                         "taskRoles[%2]")
                              .arg(quoted(role.name))
                              .arg(found.value()));
            else
                firstIndexOfName.insert(role.name, i);
        }

        const QString taskNumberPath = prefix + QLatin1String("taskNumber");
        if (role.taskNumber < 1 || check.skipped(taskNumberPath))
            taskNumbersValid = false;
        check.atLeast(taskNumberPath, role.taskNumber, 1);
        check.atLeast(prefix + QLatin1String("cpuNumber"), role.cpuNumber, 1);
        check.atLeast(prefix + QLatin1String("memoryMB"), role.memoryMB, MinMemoryMB);
        check.atLeast(prefix + QLatin1String("gpuNumber"), role.gpuNumber, 0);
        if (openPai)
            check.notEmpty(prefix + QLatin1String("command"), role.command);
        checkOpenPaiRoleFields(check, role, prefix);
    }

    const QString killAllPath = QStringLiteral("killAllOnCompletedTaskNumber");
    check.atLeast(killAllPath, spec.killAllOnCompletedTaskNumber, 0);
    // Compared with the total only when that total is known to be right.
    if (taskNumbersValid && !spec.taskRoles.isEmpty() && !check.skipped(rolesPath)) {
        const qint64 total = spec.totalTasks();
        if (spec.killAllOnCompletedTaskNumber > total)
            check.add(killAllPath,
                      QStringLiteral("must be <= %1 (the total number of tasks), got %2")
                          .arg(total)
                          .arg(spec.killAllOnCompletedTaskNumber));
    }
    check.atLeast(QStringLiteral("retryCount"), spec.retryCount, 0);
    if (spec.minWorkerTrust < 0 || spec.minWorkerTrust > JobSpec::MaxWorkerTrust)
        check.add(QStringLiteral("minWorkerTrust"),
                  QStringLiteral("must be from 0 to %1 (a worker's trust score; see "
                                 "docs/trust.md), got %2")
                      .arg(JobSpec::MaxWorkerTrust)
                      .arg(spec.minWorkerTrust));
    checkJobEnvs(check, spec.jobEnvs);

    return check.errors();
}

} // namespace ddl
