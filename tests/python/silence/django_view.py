# Not PyTorch: a Django view. tensorfit reads it (it is named directly)
# and says nothing at all: no names, no attributes, no syntax.
from django.http import JsonResponse
from django.shortcuts import get_object_or_404

from .models import Article


def article_detail(request, pk):
    article = get_object_or_404(Article, pk=pk)
    tags = [t.name for t in article.tags.all()]
    if request.method == "POST" and not request.user.is_authenticated:
        raise PermissionError("login required")
    data = {"title": article.title, "tags": tags, "views": article.views + 1}
    for i in range(len(tags)):
        data["tag%d" % i] = tags[i]
    return JsonResponse(data)


class Paginator:
    def __init__(self, items, per_page=10):
        self.items = items
        self.per_page = per_page

    def page(self, n):
        start = (n - 1) * self.per_page
        return self.items[start:start + self.per_page]


print(undefined_name.attribute[3] @ other(1, 2, *rest, **options))
