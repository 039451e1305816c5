#include "jobspecvalidator.h"

#include <QHash>

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

} // namespace

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

    return check.errors();
}

} // namespace ddl
