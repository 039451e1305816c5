#include "resourcestring.h"

#include <QRegularExpression>
#include <QSet>

#include <cmath>
#include <limits>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static Error bad(const QString &flag, const QString &given, const QString &expected)
{
    // The field is the option's name: "--ps_resource_request cpu" → "ps_resource_request".
    QString field = flag.section(u' ', 0, 0);
    while (field.startsWith(u'-'))
        field.remove(0, 1);
    return Error::make(ErrorCode::Usage,
                       ResourceString::tr("%1: '%2' is not valid: %3").arg(flag, given, expected),
                       field);
}

// A decimal number with an optional fraction, then a unit suffix (or none).
static bool splitQuantity(const QString &text, double *number, QString *unit)
{
    static const QRegularExpression pattern(u"^([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)([A-Za-z]*)$"_s);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return false;
    bool ok = false;
    *number = match.captured(1).toDouble(&ok);
    *unit = match.captured(2);
    return ok && std::isfinite(*number);
}

Result<int> ResourceString::memoryMB(const QString &text, const QString &flag)
{
    const QString expected =
        tr("expected a memory size with a unit: 4096Mi, 4Gi (binary) or 512M, 1G (decimal)");
    double number = 0;
    QString unit;
    if (!splitQuantity(text.trimmed(), &number, &unit))
        return bad(flag, text, expected);
    static const QHash<QString, double> units{{u"Ki"_s, 1024.0},
                                              {u"Mi"_s, 1024.0 * 1024},
                                              {u"Gi"_s, 1024.0 * 1024 * 1024},
                                              {u"Ti"_s, 1024.0 * 1024 * 1024 * 1024},
                                              {u"k"_s, 1e3},
                                              {u"K"_s, 1e3},
                                              {u"M"_s, 1e6},
                                              {u"G"_s, 1e9},
                                              {u"T"_s, 1e12}};
    if (unit.isEmpty()) {
        return bad(
            flag, text, tr("a number without a unit would be bytes; write %1Mi for MiB").arg(text));
    }
    if (!units.contains(unit))
        return bad(flag, text, tr("unknown unit '%1'; %2").arg(unit, expected));
    const double mebibytes = std::ceil(number * units.value(unit) / (1024.0 * 1024));
    if (mebibytes < 1)
        return bad(flag, text, tr("less than 1 MiB; %1").arg(expected));
    if (mebibytes > std::numeric_limits<int>::max())
        return bad(flag, text, tr("more memory than any machine has"));
    return int(mebibytes);
}

Result<int> ResourceString::cpus(const QString &text, const QString &flag, bool *rounded)
{
    const QString expected = tr("expected a number of CPUs: 1, 2, 0.5 or 500m (millicores)");
    double number = 0;
    QString unit;
    if (!splitQuantity(text.trimmed(), &number, &unit) || (!unit.isEmpty() && unit != u"m"_s))
        return bad(flag, text, expected);
    if (unit == u"m"_s)
        number /= 1000;
    if (number <= 0)
        return bad(flag, text, tr("a task needs more than 0 CPUs"));
    if (number > 4096)
        return bad(flag, text, tr("more CPUs than any machine has"));
    const double whole = std::ceil(number);
    if (rounded)
        *rounded = whole != number;
    return int(whole);
}

Result<int> ResourceString::gpus(const QString &text, const QString &flag)
{
    bool ok = false;
    const int count = text.trimmed().toInt(&ok);
    if (!ok || count < 0 || count > 1024)
        return bad(flag, text, tr("expected a whole number of GPUs, 0 or more"));
    return count;
}

Result<ResourceRequest> ResourceString::parse(const QString &text, const QString &flag)
{
    const QString keys = u"cpu, memory, gpu, disk, ephemeral-storage"_s;
    ResourceRequest request;
    QSet<QString> seen;
    const QStringList entries = text.split(u',');
    for (const QString &raw : entries) {
        const QString entry = raw.trimmed();
        const qsizetype equals = entry.indexOf(u'=');
        if (equals <= 0) {
            return bad(flag,
                       text,
                       entry.isEmpty()
                           ? tr("an empty entry; expected KEY=VALUE pairs separated by commas, "
                                "e.g. cpu=1,memory=4096Mi,gpu=1")
                           : tr("'%1' is not KEY=VALUE; expected e.g. cpu=1,memory=4096Mi,gpu=1")
                                 .arg(entry));
        }
        QString key = entry.left(equals).trimmed();
        const QString value = entry.mid(equals + 1).trimmed();
        if (key == u"nvidia.com/gpu"_s)
            key = u"gpu"_s;
        if (seen.contains(key))
            return bad(flag, text, tr("%1 is given twice").arg(key));
        seen.insert(key);
        const QString part = flag + u' ' + key;
        if (key == u"cpu"_s) {
            bool rounded = false;
            Result<int> count = cpus(value, part, &rounded);
            if (!count)
                return count.error();
            request.cpus = *count;
            if (rounded) {
                request.notes << tr("%1: cpu=%2 is booked as %3 whole CPU(s); DDL books whole "
                                    "CPUs")
                                     .arg(flag, value)
                                     .arg(*count);
            }
        } else if (key == u"memory"_s) {
            Result<int> mb = memoryMB(value, part);
            if (!mb)
                return mb.error();
            request.memoryMB = *mb;
        } else if (key == u"gpu"_s) {
            Result<int> count = gpus(value, part);
            if (!count)
                return count.error();
            request.gpus = *count;
        } else if (key == u"disk"_s || key == u"ephemeral-storage"_s) {
            Result<int> mb = memoryMB(value, part);
            if (!mb)
                return mb.error();
            request.notes << tr("%1: %2 is accepted, but has no effect here: a task's scratch "
                                "space is the worker's disk")
                                 .arg(flag, key);
        } else {
            return bad(
                flag, text, tr("unknown resource '%1'; the known ones are %2").arg(key, keys));
        }
    }
    return request;
}

} // namespace ddl::cli
