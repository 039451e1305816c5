#pragma once

#include <QTabWidget>

namespace ddl::desktop {

// The workspace's pages: a tab widget that says when a page comes or goes, so the navigation
// list that stands in for its (hidden) tab bar can follow.
class WorkspaceTabs : public QTabWidget
{
    Q_OBJECT
public:
    using QTabWidget::QTabWidget;

signals:
    void pagesChanged();

protected:
    void tabInserted(int) override { emit pagesChanged(); }
    void tabRemoved(int) override { emit pagesChanged(); }
};

} // namespace ddl::desktop
