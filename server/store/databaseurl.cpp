#include "databaseurl.h"

#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace ddl::server {

static Error badUrl(const QString &text, const QString &what)
{
    return Error::make(ErrorCode::InvalidConfig,
                       QStringLiteral("--database %1: %2; write "
                                      "postgresql://USER:PASSWORD@HOST:PORT/DBNAME")
                           .arg(DatabaseUrl::redacted(text), what));
}

Result<DatabaseUrl> DatabaseUrl::parse(const QString &text)
{
    const QUrl url(text);
    if (!url.isValid())
        // Not QUrl::errorString(): it quotes the whole text, password and all.
        return badUrl(text, QStringLiteral("not a URL"));
    if (url.scheme() != QLatin1String("postgresql") && url.scheme() != QLatin1String("postgres"))
        return badUrl(text, QStringLiteral("only postgresql:// is supported"));
    DatabaseUrl parsed;
    parsed.host = url.host();
    parsed.port = url.port(5432);
    parsed.user = url.userName(QUrl::FullyDecoded);
    parsed.password = url.password(QUrl::FullyDecoded);
    parsed.name = url.path(QUrl::FullyDecoded).mid(1);
    if (parsed.name.isEmpty() || parsed.name.contains(u'/'))
        return badUrl(text, QStringLiteral("the database name is missing after the host"));
    QStringList options;
    const QUrlQuery query(url);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (key == QLatin1String("host")) {
            parsed.host = value;
        } else if (key == QLatin1String("port")) {
            bool ok = false;
            parsed.port = value.toInt(&ok);
            if (!ok || parsed.port <= 0 || parsed.port > 65535)
                return badUrl(text, QStringLiteral("port must be a number from 1 to 65535"));
        } else if (key == QLatin1String("sslmode") || key == QLatin1String("sslrootcert") ||
                   key == QLatin1String("connect_timeout")) {
            options << key + u'=' + value;
        } else {
            return badUrl(text,
                          QStringLiteral("unknown parameter \"%1\" (known: host, port, "
                                         "sslmode, sslrootcert, connect_timeout)")
                              .arg(key));
        }
    }
    if (!options.join(QString()).contains(QLatin1String("connect_timeout")))
        options << QStringLiteral("connect_timeout=10");
    // A database machine that vanished fails a statement within seconds rather than hanging
    // the server on it until the system's TCP timeouts (hours).
    options << QStringLiteral("keepalives_idle=5") << QStringLiteral("keepalives_interval=2")
            << QStringLiteral("keepalives_count=3") << QStringLiteral("tcp_user_timeout=15000");
    parsed.connectOptions = options.join(u';');
    return parsed;
}

QString DatabaseUrl::redacted(const QString &text)
{
    // On the text itself: an invalid URL must not show its password either.
    static const QRegularExpression password(QStringLiteral("(://[^@/:]*):[^@/]*@"));
    QString shown = text;
    return shown.replace(password, QStringLiteral("\\1:***@"));
}

} // namespace ddl::server
