#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl::cli {

// One option a command accepts. Names are written without dashes, as users see them
// ("job_uuid", "ca-cert"); '-' and '_' are interchangeable when users type them.
struct OptionSpec
{
    QString name;
    QString valueName; // empty: a flag that takes no value
    QString description;
    QChar shortName; // optional single-letter alias ("-f")
    bool required = false;

    bool takesValue() const { return !valueName.isEmpty(); }
};

// What the command line said: option values by their spec name, plus positional arguments.
class ParsedArguments
{
public:
    bool isSet(const QString &name) const { return m_values.contains(name); }
    QString value(const QString &name, const QString &defaultValue = {}) const
    {
        return m_values.value(name, defaultValue);
    }
    void setValue(const QString &name, const QString &value) { m_values.insert(name, value); }
    const QStringList &positional() const { return m_positional; }
    void addPositional(const QString &argument) { m_positional.append(argument); }

private:
    QHash<QString, QString> m_values;
    QStringList m_positional;
};

// Parses "--flag=value", "--flag value", "--flag" and "-f" against the given specs. Unknown
// options, missing values and missing required options are errors with code "usage" that name
// the option; "--" ends the options.
class ArgumentParser
{
    Q_DECLARE_TR_FUNCTIONS(ArgumentParser)
public:
    static Result<ParsedArguments> parse(const QStringList &arguments,
                                         const QList<OptionSpec> &specs);

    // The first argument that is not an option or the value of one of the given options: the
    // command name in "ddlcli --server URL submit ...". Returns -1 when there is none.
    static qsizetype findCommand(const QStringList &arguments, const QList<OptionSpec> &specs);

    // "--name=VALUE" / "--name" as shown in help and errors.
    static QString displayName(const OptionSpec &spec);

    // Help text for a list of options, one per line, aligned.
    static QString describe(const QList<OptionSpec> &specs);
};

} // namespace ddl::cli
