#include "folderdrop.h"

#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QUrl>

namespace ddl::desktop {

FolderDrop FolderDrop::inspect(const QMimeData *mime)
{
    FolderDrop drop;
    const QList<QUrl> urls = mime && mime->hasUrls() ? mime->urls() : QList<QUrl>();
    if (urls.isEmpty()) {
        drop.problem = tr("Drop a folder from the file manager here.");
    } else if (urls.size() > 1) {
        drop.problem = tr("Drop one folder at a time (%n items were dropped).", nullptr,
                          int(urls.size()));
    } else if (!urls.first().isLocalFile()) {
        drop.problem = tr("Only a folder on this computer can be dropped here.");
    } else if (const QFileInfo info(urls.first().toLocalFile()); !info.isDir()) {
        drop.problem = tr("%1 is not a folder. Drop the folder that holds it.")
                           .arg(info.fileName());
    } else {
        drop.folder = info.absoluteFilePath();
    }
    return drop;
}

bool FolderDrop::answer(QDropEvent *event) const
{
    if (!isFolder()) {
        event->ignore();
        return false;
    }
    event->acceptProposedAction();
    return true;
}

} // namespace ddl::desktop
