#include "seedsubmission.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static Error usage(const QString &message, const QString &flag)
{
    return Error::make(ErrorCode::Usage, message, flag);
}

Result<int>
SeedFlags::number(const ParsedArguments &arguments, const QString &flag, int minimum, int fallback)
{
    if (!arguments.isSet(flag))
        return fallback;
    const QString text = arguments.value(flag);
    bool ok = false;
    const int value = text.trimmed().toInt(&ok);
    if (!ok || value < minimum) {
        return usage(tr("--%1=%2 is not valid: expected a whole number, %3 or more")
                         .arg(flag, text)
                         .arg(minimum),
                     flag);
    }
    return value;
}

Result<bool>
SeedFlags::boolean(const ParsedArguments &arguments, const QString &flag, bool fallback)
{
    if (!arguments.isSet(flag))
        return fallback;
    const QString text = arguments.value(flag).trimmed().toLower();
    if (text == u"true"_s || text == u"1"_s || text == u"yes"_s)
        return true;
    if (text == u"false"_s || text == u"0"_s || text == u"no"_s)
        return false;
    return usage(tr("--%1=%2 is not valid: expected true or false (or 1, 0)")
                     .arg(flag, arguments.value(flag)),
                 flag);
}

Result<QString> SeedFlags::folder(const QString &text, const QString &flag, const QString &workDir)
{
    const QFileInfo info(QDir(workDir), text);
    if (!info.exists()) {
        return Error::make(ErrorCode::NotFound,
                           tr("--%1=%2: there is no such folder (looked for %3)")
                               .arg(flag, text, info.absoluteFilePath()),
                           flag);
    }
    if (!info.isDir()) {
        return usage(
            tr("--%1=%2: %3 is a file; expected a folder").arg(flag, text, info.absoluteFilePath()),
            flag);
    }
    return info.canonicalFilePath();
}

Status SeedFlags::data(const QString &text,
                       const QString &flag,
                       const QString &workDir,
                       SeedSubmission &submission)
{
    static const QString scheme = u"ddl://"_s;
    static const QRegularExpression datasetName(u"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"_s);
    const QFileInfo local(QDir(workDir), text);
    if (!text.startsWith(scheme) && local.isDir()) {
        submission.datasetFolder = local.canonicalFilePath();
        return Ok{};
    }
    const QString name = text.startsWith(scheme) ? text.mid(scheme.size()) : text;
    if (!datasetName.match(name).hasMatch()) {
        return Error::make(ErrorCode::NotFound,
                           tr("--%1=%2: expected a folder (there is none at %3) or the name of one "
                              "of your datasets (ddlcli dataset list)")
                               .arg(flag, text, local.absoluteFilePath()),
                           flag);
    }
    if (!text.startsWith(scheme)) {
        submission.notes << tr("--%1=%2: there is no folder %3 here, so it names your dataset %2 "
                               "on the server")
                                .arg(flag, text, local.absoluteFilePath());
    }
    submission.datasetName = name;
    return Ok{};
}

Status SeedFlags::environment(const QString &entry, const QString &flag, QJsonObject &envs)
{
    static const QRegularExpression variable(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    const qsizetype equals = entry.indexOf(u'=');
    const QString key = equals < 0 ? entry : entry.left(equals);
    if (equals < 0 || !variable.match(key).hasMatch()) {
        return usage(tr("--%1 %2 is not valid: expected KEY=VALUE, KEY made of letters, digits "
                        "and _ and not starting with a digit")
                         .arg(flag, entry),
                     flag);
    }
    const QString value = entry.mid(equals + 1);
    if (envs.contains(key) && envs.value(key).toString() != value) {
        return usage(tr("--%1 sets %2 twice, to '%3' and to '%4'; give it once")
                         .arg(flag, key, envs.value(key).toString(), value),
                     flag);
    }
    envs.insert(key, value);
    return Ok{};
}

QList<OptionSpec> SeedFlags::queueOptions()
{
    return {{u"priority"_s,
             u"N"_s,
             tr("DDL: -100 to 100 (default 0): higher runs first; between users, fair share "
                "decides"),
             {},
             false},
            {u"allow-unschedulable"_s,
             {},
             tr("DDL: queue the job even when no registered worker is big enough for it"),
             {},
             false}};
}

Status SeedFlags::readQueueOptions(const ParsedArguments &arguments, SeedSubmission &submission)
{
    if (arguments.isSet(u"priority"_s)) {
        bool ok = false;
        const int priority = arguments.value(u"priority"_s).toInt(&ok);
        if (!ok || priority < -100 || priority > 100) {
            return usage(tr("--priority=%1 is not valid: expected a whole number from -100 to 100")
                             .arg(arguments.value(u"priority"_s)),
                         u"priority"_s);
        }
        submission.priority = priority;
    }
    submission.allowUnschedulable = arguments.isSet(u"allow-unschedulable"_s);
    return Ok{};
}

OptionSpec SeedFlags::formatOption()
{
    return {u"format"_s,
            u"FORMAT"_s,
            tr("DDL: print 'table' (the default) or 'json' (--output is the seed's output folder)"),
            {},
            false};
}

Error SeedFlags::specErrors(const QList<SpecError> &errors,
                            const QHash<QString, QString> &fieldFlags)
{
    QStringList lines;
    QString firstFlag;
    for (const SpecError &error : errors) {
        QString flag;
        // The longest known prefix of the field path names the flag.
        qsizetype longest = -1;
        for (auto it = fieldFlags.cbegin(); it != fieldFlags.cend(); ++it) {
            if ((error.field == it.key() || error.field.startsWith(it.key() + u'.') ||
                 error.field.startsWith(it.key() + u'[')) &&
                it.key().size() > longest) {
                flag = it.value();
                longest = it.key().size();
            }
        }
        if (firstFlag.isEmpty())
            firstFlag = flag;
        lines << (flag.isEmpty()
                      ? error.toString()
                      : u"--"_s + flag + u": "_s + error.message + u" ("_s + error.field + u')');
    }
    return Error::make(
        ErrorCode::InvalidSpec,
        tr("the job these flags describe is not valid:\n  %1").arg(lines.join(u"\n  "_s)),
        firstFlag);
}

} // namespace ddl::cli
