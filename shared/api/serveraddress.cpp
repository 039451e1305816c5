#include "serveraddress.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl {

Result<QUrl> ServerAddress::parse(const QString &text)
{
    QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        return Error::make(ErrorCode::Usage,
                           tr("no server URL given; write it as https://HOST:PORT"),
                           u"server"_s);
    }
    if (!trimmed.contains(u"://"_s))
        trimmed.prepend(u"https://"_s);
    const QUrl url(trimmed, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        return Error::make(ErrorCode::Usage,
                           tr("'%1' is not a server URL; write it as https://HOST:PORT").arg(text),
                           u"server"_s);
    }
    if (url.scheme().compare(u"https"_s, Qt::CaseInsensitive) != 0) {
        return Error::make(ErrorCode::Usage,
                           tr("'%1' does not use https; DDL servers only speak TLS, write "
                              "https://%2")
                               .arg(text, url.authority()),
                           u"server"_s);
    }
    QUrl normal;
    normal.setScheme(u"https"_s);
    normal.setHost(url.host().toLower());
    normal.setPort(url.port(443));
    return normal;
}

QString ServerAddress::key(const QUrl &url)
{
    return url.toString(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::StripTrailingSlash);
}

} // namespace ddl
